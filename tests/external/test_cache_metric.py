"""--metric cache under real valgrind: callgrind's dumps of the counted regions parsed, and the
command line's tables and results for one contender."""

import json
import re
import shutil

import pytest
from support.cli import COUNTED_ONCE, QUICK, run_perflab
from support.metrics_shared import WORK_BENCH

from perflab.metrics import callgrind_format
from perflab.metrics.cache import SIMULATION
from perflab.metrics.count_jobs import Target
from perflab.metrics.instructions import region_dumps
from perflab.profile import simulated_cache
from perflab.render.cache_tables import TITLE

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


@pytest.fixture(scope="module")
def regions(tmp_path_factory):
    """The 0-call and 50-call region dumps of one real simulated worker (one valgrind process)."""
    path = tmp_path_factory.mktemp("cache") / "work.py"
    path.write_text(WORK_BENCH)
    texts, error = region_dumps(shutil.which("valgrind"), Target.of(str(path), "DOC", "once"), 50, 600.0, SIMULATION)
    assert error is None
    return [callgrind_format.parse(text) for text in texts]


@needs_valgrind
def test_functions_own_counts_add_up_to_the_dumps_totals(regions):
    for dump in regions:
        assert dump.events == [
            "Ir",
            "Dr",
            "Dw",
            "I1mr",
            "D1mr",
            "D1mw",
            "ILmr",
            "DLmr",
            "DLmw",
            "Bc",
            "Bcm",
            "Bi",
            "Bim",
        ]
        for event in dump.events:  # a call's inclusive cost counted again would exceed the total
            assert sum(f.get(event, 0) for f in dump.functions.values()) == dump.totals[event]
    empty, full = regions
    assert full.totals["Ir"] > 50 * 1000 > empty.totals["Ir"]  # 50 json.dumps calls, and none
    assert any(d.startswith("D1 cache:") for d in full.descriptions)


@needs_valgrind
def test_every_function_is_named_in_the_region_dumps(regions):
    """Names are written in every dump, not as numbers defined in an earlier dump."""
    names = list(regions[1].functions)
    assert names and not [n for n in names if re.fullmatch(r"\(\d+\)", n)]
    assert any("json" in name or "encoder" in name for name in names)


@needs_valgrind
def test_cache_metric_on_the_command_line(bench_file, tmp_path):
    """One simulated process of one contender (COUNTED_ONCE; ~13 CPU-s, most of it valgrind's
    start-up): the table, the line about hardware counters, the counts in --json with the functions
    that miss, and the Markdown table; the cell's profile (a few samples: only what it keeps is
    looked at) keeps the counts per C function for its tooltips. (That separate processes count
    alike is external/test_metrics_results.py's: both metrics count through the same regions.)"""
    path = bench_file(WORK_BENCH)
    out, summary, profiles = tmp_path / "out.json", tmp_path / "out.md", tmp_path / "profiles"
    options = ["--contender", "once", "--metric", "cache", "--json", out, "--markdown", summary]
    options += ["--samples", "20", "--profile-dir", profiles]
    done = run_perflab("run", path, *options, *QUICK, *COUNTED_ONCE, timeout=900)  # valgrind, on a loaded machine
    assert done.returncode == 0, done.stderr
    assert "cycles (estimate)" in done.stdout and "D1 write misses" in done.stdout  # the table's rows
    assert "hardware counters:" in done.stdout or "(hardware)" in done.stdout  # perf stat's, or why not
    (reading,) = json.loads(out.read_text())["metrics"]["cache"]
    assert len(reading["per_call"]) == 1 and reading["functions"]  # one process per cell, as asked
    assert reading["per_call"][0]["Ir"] > 1000  # a json.dumps call's instructions
    assert f"{TITLE}: DOC" in summary.read_text() and "| instructions |" in summary.read_text()
    kept = json.loads((profiles / "DOC-once.profile.json").read_text())["metadata"][simulated_cache.KEY]
    assert kept["py_encode_basestring_ascii"]["Ir"] > 0 and not [name for name in kept if "isra" in name]
