"""--metric results are kept: in --json files, in the results store, through export and import, and
in `perflab history --metric instructions` (real valgrind, real SQLite, the real command line)."""

import re

from support.cli import QUICK, load_json, run_perflab
from support.metrics_results_shared import ONE_CELL_BENCH, _result

from perflab import metrics
from perflab.metrics import instructions
from perflab.results.model import RunResult

TWO_CONTENDERS = (
    ONE_CELL_BENCH
    + """
@bench.contender
def dumps_sorted(doc):
    return json.dumps(doc, sort_keys=True)
"""
)


def test_compare_keeps_each_sides_metrics_in_its_stored_run(bench_file, tmp_path):
    """compare --json holds both contenders' memory; a comparison of revisions is stored as one run
    per revision, each with its own rows."""
    path = bench_file(TWO_CONTENDERS)
    done = run_perflab(
        "compare",
        path,
        "--metric",
        "memory",
        "--no-fuzz",
        "--json",
        tmp_path / "c.json",
        "--db",
        tmp_path / "c.db",
        *QUICK,
    )
    assert done.returncode == 0, done.stderr
    kept = metrics.stored(RunResult.from_json(load_json(tmp_path / "c.json")))
    assert sorted(use.contender for use in kept.memory) == ["dumps", "dumps_sorted"]
    assert all(use.peak_rss > 1_000_000 for use in kept.memory)


def test_history_of_instruction_counts_finds_a_half_percent_step(tmp_path):
    """Ten stored runs whose counts step up by 0.5% (a step the 3% floor for times would hide);
    runs without counts are left out of the series."""
    from perflab.results.store import Store

    db = tmp_path / "history.db"
    with Store.open(db) as store:
        store.save(_result())  # timed only: not in the series
        for index in range(10):
            value = 50_000.0 if index < 5 else 50_250.0
            count = instructions.InstructionCount("DOC", "a", 100, [value, value, value])
            measured = metrics.Measured(instructions=[count]).to_json()
            # ten distinct runs (equal results would be one run stored twice: the store refuses that)
            store.save(_result(metrics=measured, metadata={"started_at": f"2026-01-01T00:00:{index:02d}+00:00"}))
    done = run_perflab("history", "counted", "--metric", "instructions", "--db", db)
    assert done.returncode == 0, done.stderr
    output = " ".join(done.stdout.split())
    assert "10 run(s)" in output and "50,250 ± 0.00%" in output
    assert "▲ more instructions +0.50%" in output
    assert "change point: +0.50% [95% CI" in output and "after run 6, at or before run 7" in output


def test_history_without_counts_says_how_to_get_them(tmp_path):
    from perflab.results.store import Store

    db = tmp_path / "history.db"
    with Store.open(db) as store:
        store.save(_result())
    done = run_perflab("history", "counted", "--metric", "instructions", "--db", db)
    assert done.returncode == 2
    assert "no instruction counts of counted" in done.stderr and "perflab run --metric instructions" in done.stderr


SIZED_BENCH = """
import json
import perflab
bench = perflab.Benchmark("parsers")

@bench.case(bytes=len)
def SMALL():
    return json.dumps(list(range(20))).encode()

@bench.case(bytes=len)
def LARGE():
    return json.dumps(list(range(2_000))).encode()

@bench.contender
def whole(doc):
    return len(json.loads(doc))         # the whole document in memory: grows with it
"""


def test_the_report_charts_memory_against_case_size(bench_file, tmp_path):
    """run --metric memory --html on two sizes: the memory-vs-size chart with the real figures (the
    flat and the rising line of two contenders are the unit test's). One contender: 8 memory workers
    (3 memray and 1 tracemalloc per cell), the fewest that give two sizes: 41 s at load average 9,
    26 s of it those workers."""
    done = run_perflab("run", bench_file(SIZED_BENCH), "--metric", "memory", "--html", tmp_path / "r.html", *QUICK)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r.html").read_text()
    assert "Memory against case size" in page and page.count("<svg class='chart memory-sizes'") == 2
    titles = re.findall(r"<title>whole / (\w+) \([^)]*\): ([\d.,]+) (B|KiB) \[[^<]*bytes allocated per call", page)
    allocated = {case: float(value.replace(",", "")) * (1024 if unit == "KiB" else 1) for case, value, unit in titles}
    assert set(allocated) == {"SMALL", "LARGE"}, titles
    assert allocated["LARGE"] > 20 * allocated["SMALL"]  # 2,000 numbers parsed against 20: the list and its ints
