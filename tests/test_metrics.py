"""--metric: instruction counts under real valgrind, memory in real workers, perf stat, and the
command line's failure paths (valgrind or perf missing from PATH)."""

import math
import shutil
import sys
from pathlib import Path

import pytest
from support.cli import QUICK, run_perflab
from support.git_repos import git_repository

from perflab.bench.loading import load_benchmark
from perflab.measure.runner import run_benchmark
from perflab.measure.settings import Settings
from perflab.metrics import counters, instructions, memory
from perflab.metrics.count_jobs import Target

WORK_BENCH = """
import json
import time
import perflab
bench = perflab.Benchmark("work", compare="exact")

@bench.case()
def DOC():
    return {"numbers": list(range(40)), "text": "x" * 200}

@bench.contender
def once(doc):
    return json.dumps(doc)

@bench.contender
def twice(doc):
    json.dumps(doc)
    return json.dumps(doc)

@bench.contender
def sleepy(doc):
    time.sleep(0.002)
    return json.dumps(doc)
"""

MEMORY_BENCH = """
import perflab
bench = perflab.Benchmark("memory", compare="exact")
KEPT = []

@bench.case()
def N():
    return 1

@bench.contender
def transient(n):
    block = bytearray(1_000_000)   # 1 MB held during the call only
    return n

@bench.contender
def retaining(n):
    KEPT.append(bytearray(1000))   # 1 kB kept per call
    return n
"""

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


def _path_without(tmp_path: Path, *tools: str) -> str:
    """A PATH holding this interpreter but none of ``tools`` (a real missing-tool failure)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    assert not any(shutil.which(tool, path=str(bin_dir)) for tool in tools)
    return str(bin_dir)


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    path = tmp_path_factory.mktemp("metrics") / "work.py"
    path.write_text(WORK_BENCH)
    targets = [Target.of(str(path), "DOC", "once"), Target.of(str(path), "DOC", "twice")]
    return {c.contender: c for c in instructions.measure(targets, repeats=2, loops=200)}


@needs_valgrind
def test_twice_the_work_counts_about_twice_the_instructions(counted):
    assert counted["once"].error is None and counted["twice"].error is None
    assert counted["once"].median > 1000
    assert counted["twice"].median / counted["once"].median == pytest.approx(2.0, rel=0.05)


@needs_valgrind
def test_repeated_counts_agree_within_a_tenth_of_a_percent(counted):
    for count in counted.values():
        assert len(count.per_call) == 2
        assert count.spread <= 0.001


def test_missing_valgrind_is_one_line_and_exit_2_before_anything_runs(bench_file, tmp_path):
    path = bench_file(WORK_BENCH)
    done = run_perflab(
        "run", path, "--metric", "instructions", *QUICK, env={"PATH": _path_without(tmp_path, "valgrind")}
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "perflab: error: valgrind not found: apt-get install valgrind"
    assert done.stdout == ""  # nothing was measured


def test_unknown_metric_is_a_usage_error(bench_file):
    done = run_perflab("run", bench_file(WORK_BENCH), "--metric", "speed", *QUICK)
    assert done.returncode == 2
    assert "unknown metric 'speed'" in done.stderr


def test_missing_perf_is_reported_as_unsupported_not_a_crash(bench_file, tmp_path):
    path = bench_file(WORK_BENCH)
    done = run_perflab(
        "run",
        path,
        "--contender",
        "once",
        "--metric",
        "counters",
        *QUICK,
        env={"PATH": _path_without(tmp_path, "perf")},
    )
    assert done.returncode == 0, done.stderr
    assert (
        "hardware counters: not supported on this machine (perf stat: perf not found: apt-get install linux-perf)"
    ) in " ".join(done.stdout.split())


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf not installed")
def test_counters_report_what_perf_supports_here(bench_file):
    done = run_perflab("run", bench_file(WORK_BENCH), "--contender", "once", "--metric", "counters", *QUICK)
    assert done.returncode == 0, done.stderr
    output = " ".join(done.stdout.split())
    if counters.probe() == (True, None):
        assert "IPC" in output
    else:
        assert "hardware counters: not supported on this machine (perf stat:" in output
        assert "context-switches" in output  # kernel events are still counted


def test_perf_stat_csv_is_parsed_with_unsupported_events():
    text = (
        "# started\n<not supported>,,cycles,0,100.00,,\n12,,context-switches,769685,100.00,,\n"
        "1234,,instructions:u,5,100.00,,\n"
    )
    assert counters.parse(text) == {"cycles": None, "context-switches": 12.0, "instructions": 1234.0}


def test_memory_sees_transient_peaks_and_retained_bytes(bench_file):
    path = bench_file(MEMORY_BENCH)
    targets = [Target.of(str(path), "N", "transient"), Target.of(str(path), "N", "retaining")]
    uses = {u.contender: u for u in memory.measure(targets, loops=50)}
    transient, retaining = uses["transient"], uses["retaining"]
    assert transient.error is None and retaining.error is None
    assert transient.peak_traced >= 1_000_000
    assert abs(transient.retained_per_call) < 100
    assert 1000 <= retaining.retained_per_call < 1500
    assert transient.peak_rss > 5_000_000 and transient.rss_growth >= 0


def test_disagreement_is_flagged_when_time_and_instructions_tell_different_stories(bench_file):
    """Equal instruction counts but a contender that sleeps: its time ratio is far beyond 2x."""
    path = bench_file(WORK_BENCH)
    result = run_benchmark(
        str(path),
        load_benchmark(path),
        ["DOC"],
        ["once", "twice", "sleepy"],
        Settings(precision=0.5, max_time=10, values=5, value_time=0.002, min_rounds=2),
    )
    counts = [
        instructions.InstructionCount("DOC", name, 100, [value, value])
        for name, value in (("once", 60000.0), ("twice", 120000.0), ("sleepy", 60500.0))
    ]
    flagged = instructions.disagreements(result, counts)
    assert [d.contender for d in flagged] == ["sleepy"]
    assert flagged[0].instruction_ratio == pytest.approx(60500 / 60000)
    assert flagged[0].time_ratio > 2 and flagged[0].factor > 2
    assert not math.isnan(flagged[0].factor)


REPO_BENCH = """
import perflab
import mylib

bench = perflab.Benchmark("kept")

@bench.case()
def ONE():
    return 1

@bench.contender
def lib(n):
    return mylib.work(n)
"""


def test_compare_measures_each_revision_in_its_worktree(tmp_path):
    """v2 of the library keeps 1 kB per call: memory is measured on each revision's own code."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    (repo / "bench.py").write_text(REPO_BENCH)
    (repo / "mylib.py").write_text("KEPT = []\ndef work(n):\n    return n\n")
    git("add", "-A")
    git("commit", "-qm", "v1")
    (repo / "mylib.py").write_text("KEPT = []\ndef work(n):\n    KEPT.append(bytearray(1000))\n    return n\n")
    git("commit", "-qam", "v2 keeps memory")
    done = run_perflab("compare", repo / "bench.py", "--rev", "HEAD~1", "--rev", "HEAD", "--metric", "memory", *QUICK)
    assert done.returncode == 0, done.stderr
    memory_table = done.stdout[done.stdout.index("memory (tracemalloc") :]
    rows = {
        cells[2].strip(): cells
        for line in memory_table.splitlines()
        if len(cells := line.split("│")) == 9 and cells[1].strip() == "ONE"
    }
    assert rows["HEAD"][6].strip().endswith("KiB")  # retained/call: ~1 kB
    assert rows["HEAD~1"][6].strip().endswith(" B")  # retained/call: nothing
