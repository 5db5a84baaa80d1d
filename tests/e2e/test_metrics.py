"""--metric: instruction counts under real valgrind, memory in real workers, perf stat, and the
command line's failure paths (valgrind or perf missing from PATH)."""

import re

from support.cli import QUICK, run_perflab
from support.git_repos import git_repository
from support.metrics_shared import WORK_BENCH

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


def test_unknown_metric_is_a_usage_error(bench_file):
    done = run_perflab("run", bench_file(WORK_BENCH), "--metric", "speed", *QUICK)
    assert done.returncode == 2
    assert "unknown metric 'speed'" in done.stderr


def test_compare_measures_each_revision_in_its_worktree(tmp_path):
    """v2 of the library keeps 1 kB per call: memory is measured on each revision's own code, and
    the differential memory profile (--profile-memory) finds it in the library's function."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    (repo / "bench.py").write_text(REPO_BENCH)
    (repo / "mylib.py").write_text("KEPT = []\ndef work(n):\n    return n\n")
    git("add", "-A")
    git("commit", "-qm", "v1")
    (repo / "mylib.py").write_text("KEPT = []\ndef work(n):\n    KEPT.append(bytearray(1000))\n    return n\n")
    git("commit", "-qam", "v2 keeps memory")
    done = run_perflab(
        "compare",
        repo / "bench.py",
        "--rev",
        "HEAD~1",
        "--rev",
        "HEAD",
        "--metric",
        "memory",
        "--profile-memory",
        *QUICK,
    )
    assert done.returncode == 0, done.stderr
    assert "ONE: HEAD vs HEAD~1: bytes allocated per call " in done.stderr
    assert re.search(r"\d+% of the [\d.]+ KiB added is in lib -> work", done.stderr), done.stderr
    memory_table = done.stdout[done.stdout.index("memory (memray; tracemalloc") :]
    header = next(line for line in memory_table.splitlines() if "retained/call" in line).split("┃")
    retained, verdict = header.index(" retained/call "), header.index(" memory verdict ")
    rows = {
        cells[2].strip(): cells
        for line in memory_table.splitlines()
        if len(cells := line.split("│")) == len(header) and cells[1].strip() == "ONE"
    }
    assert rows["HEAD"][retained].strip().endswith("KiB")  # retained/call: ~1 kB
    assert rows["HEAD~1"][retained].strip().endswith(" B")  # retained/call: nothing
    assert rows["HEAD"][verdict].strip() == "more memory"  # it allocates the kilobyte it keeps
