"""--metric: instruction counts under real valgrind, memory in real workers, perf stat, and the
command line's failure paths (valgrind or perf missing from PATH)."""

import shutil
import sys
from pathlib import Path

import pytest
from support.cli import QUICK, run_perflab
from support.metrics_shared import WORK_BENCH

from perflab.metrics import counters, instructions
from perflab.metrics.count_jobs import Target

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
    """Three valgrind processes (~5 CPU-s each, mostly the worker's start-up): ``once`` counted
    twice, for the agreement of repeated counts, and ``twice`` once, for the ratio."""
    path = tmp_path_factory.mktemp("metrics") / "work.py"
    path.write_text(WORK_BENCH)
    (once,) = instructions.measure([Target.of(str(path), "DOC", "once")], repeats=2, loops=200)
    (twice,) = instructions.measure([Target.of(str(path), "DOC", "twice")], repeats=1, loops=200)
    return {"once": once, "twice": twice}


@needs_valgrind
def test_twice_the_work_counts_about_twice_the_instructions(counted):
    assert counted["once"].error is None and counted["twice"].error is None
    assert counted["once"].median > 1000
    assert counted["twice"].median / counted["once"].median == pytest.approx(2.0, rel=0.05)


@needs_valgrind
def test_repeated_counts_agree_within_a_tenth_of_a_percent(counted):
    assert len(counted["once"].per_call) == 2
    assert counted["once"].spread <= 0.001


def test_missing_valgrind_is_one_line_and_exit_2_before_anything_runs(bench_file, tmp_path):
    path = bench_file(WORK_BENCH)
    done = run_perflab(
        "run", path, "--metric", "instructions", *QUICK, env={"PATH": _path_without(tmp_path, "valgrind")}
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "perflab: error: valgrind not found: apt-get install valgrind"
    assert done.stdout == ""  # nothing was measured


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
