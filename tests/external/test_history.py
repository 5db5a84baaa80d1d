"""End to end on a real git repository, under valgrind: the CI gate fails on a change in
instructions too small for wall time."""

from __future__ import annotations

import os
import shutil

import pytest
from support.cli import COUNTED_ONCE, QUICK, run_perflab

COUNTING = """
import perflab

N = {n}

bench = perflab.Benchmark("counting")


@bench.case
def LOOP():
    return 1000


@bench.contender
def loop_sum(n):
    total = 0
    for i in range(n + N):
        total += i
    return total
"""


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (apt-get install valgrind)")
def test_check_fails_on_a_one_percent_increase_in_instructions_against_a_revision(tmp_path):
    """~1% more work: too small for wall time at this budget, certain for callgrind's counts. One
    valgrind process per revision (COUNTED_ONCE, each ~6 CPU-s): the gate is this test's subject,
    the processes' agreement external/test_metrics_results.py's."""
    from support.git_repos import git_repository

    project = tmp_path / "project"
    git = git_repository(project)
    (project / "bench.py").write_text(COUNTING.format(n=0))
    git("add", "bench.py")
    git("commit", "-q", "-m", "base")
    (project / "bench.py").write_text(COUNTING.format(n=10))
    env = {**os.environ, "PERFLAB_DB": str(tmp_path / "perflab.db")}
    process = run_perflab(
        "check",
        "bench.py",
        "--against",
        "HEAD",
        "--metric",
        "instructions",
        *QUICK,
        *COUNTED_ONCE,
        cwd=project,
        env=env,
    )
    assert process.returncode == 1, process.stdout + process.stderr
    assert "more than 1.05x slower or 0.50% more instructions" in process.stdout
    row = next(
        line for line in process.stdout.splitlines() if line.startswith("| LOOP | loop_sum |") and "REGRESSION" in line
    )
    assert "+1.0" in row  # +1.0x% instructions per call, a range of zero width
    assert "output differs from the baseline revision" in process.stdout  # the sum changed, a note only
