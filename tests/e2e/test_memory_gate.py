"""perflab check --metric memory: the memory gate against a results file (the real command line,
real workers under memray)."""

from support.cli import QUICK, load_json, run_perflab

ALLOCATING = """
import perflab
bench = perflab.Benchmark("allocating", compare="exact")

@bench.case()
def N():
    return 10_000

@bench.contender
def block(n):
    total = 0
    for i in range(300):  # time that hides the doubled allocation's from the time gate
        total += i
    return len(bytearray({factor} * n)) // {factor} + total
"""


def test_memory_gate_fails_a_doubled_allocation_and_passes_the_unchanged_tree(bench_file, tmp_path):
    """A baseline run, then two checks against it: the same code passes, a contender that allocates
    twice the bytes per call fails (exit 1) on the memory gate alone (the time threshold is 1.99x,
    and the calls' time is mostly a loop that does not change). ~30 s under load: three perflab
    processes, each timing one cell and measuring its memory in four workers (tracemalloc and RSS;
    three memray processes), the least a check against a baseline measured with memory takes."""
    path = bench_file(ALLOCATING.format(factor=1))
    options = ["--metric", "memory", "--db", tmp_path / "runs.db", *QUICK]
    done = run_perflab("run", path, "--json", tmp_path / "baseline.json", *options)
    assert done.returncode == 0, done.stderr
    gate = ["check", path, "--against", tmp_path / "baseline.json", "--threshold", "99", *options]

    unchanged = run_perflab(*gate, "--json", tmp_path / "same.json")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    same = load_json(tmp_path / "same.json")
    assert same["passed"] and {row["figure"] for row in same["memory"]} == {"allocated/call", "peak"}
    assert all(row["verdict"] != "REGRESSION" for row in same["memory"])

    path.write_text(ALLOCATING.format(factor=2))
    doubled = run_perflab(*gate, "--json", tmp_path / "doubled.json")
    assert doubled.returncode == 1, doubled.stdout + doubled.stderr
    outcome = load_json(tmp_path / "doubled.json")
    verdicts = {row["figure"]: row["verdict"] for row in outcome["memory"]}
    assert verdicts == {"allocated/call": "REGRESSION", "peak": "REGRESSION"}
    assert all(cell["verdict"] != "REGRESSION" for cell in outcome["cells"])  # time alone would pass
    assert "more than 1.99x slower or 1.00% more memory" in doubled.stdout
