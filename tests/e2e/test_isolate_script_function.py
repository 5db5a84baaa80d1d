"""perflab isolate on a function of the script being run, through the real command line: it is
recorded, its benchmark resolves it at set-up (never inside the timed call), and the benchmark
runs from another directory because it finds the program relative to itself."""

import inspect
import shutil
import sys

from support.cli import QUICK, load_json, run_perflab

from perflab.bench.loading import load_benchmark

APP = """
def parse_line(line, separator="="):
    key, _, value = line.partition(separator)
    return {key.strip(): value.strip()}


if __name__ == "__main__":
    for number in range(300):
        parse_line(f"key{number} = value{number}")
"""

# The identical function, called directly: an added contender the isolated benchmark must find
# equivalent to the generated `original`.
DIRECT = """

@bench.contender
def direct(calls):
    from app import parse_line  # noqa: F401 (imported once: the module is cached)

    return [parse_line(*args, **kwargs) for args, kwargs in calls]
"""


def project(tmp_path, source=APP):
    (tmp_path / "project" / "prog").mkdir(parents=True)
    (tmp_path / "project" / "benchmarks").mkdir()
    (tmp_path / "project" / "prog" / "app.py").write_text(source)
    return tmp_path / "project"


def isolate(root, function, *more):
    return run_perflab(
        "isolate",
        "--function",
        function,
        "--calls",
        "20",
        "--output",
        "benchmarks/bench_app.py",
        *more,
        "--",
        sys.executable,
        "prog/app.py",
        cwd=root,
    )


def test_a_function_of_the_running_script_is_isolated_and_its_benchmark_runs_elsewhere(tmp_path):
    root = project(tmp_path)
    done = isolate(root, "app:parse_line")
    assert done.returncode == 0, done.stderr
    assert "20 calls of 300 recorded" in done.stderr
    bench = root / "benchmarks" / "bench_app.py"
    source = bench.read_text()
    assert str(tmp_path) not in source  # the program's directory is relative to the file
    bench.write_text(source + DIRECT)
    moved = tmp_path / "moved"
    shutil.copytree(root, moved)
    shutil.rmtree(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = run_perflab(
        "run", moved / "benchmarks" / "bench_app.py", *QUICK, "--json", elsewhere / "r.json", cwd=elsewhere
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    statuses = {(e["case"], e["contender"]): e["status"] for e in load_json(elsewhere / "r.json")["equivalence"]}
    assert statuses[("ALL", "original")] == "reference" and statuses[("ALL", "direct")] == "equivalent"


def test_the_original_is_resolved_at_set_up_not_in_the_timed_call(tmp_path):
    root = project(tmp_path)
    assert isolate(root, "__main__:parse_line").returncode == 0  # the name it has while it runs
    benchmark = load_benchmark(root / "benchmarks" / "bench_app.py")
    original = benchmark.contenders["original"]
    assert original.setup
    timed = original.build()
    app = sys.modules["app"]  # the script, imported as a module under its file name by the set-up
    assert inspect.getclosurevars(timed).nonlocals == {"function": app.parse_line}
    assert timed([(("a = 1",), {}), (("b:2",), {"separator": ":"})]) == [{"a": "1"}, {"b": "2"}]


def test_a_script_that_runs_when_imported_is_refused_with_what_to_do(tmp_path):
    root = project(tmp_path, APP.replace('if __name__ == "__main__":\n    ', "if True:\n    "))
    done = isolate(root, "app:parse_line")
    assert done.returncode == 2
    assert "app.py runs its program when imported" in done.stderr
    assert "put the program's top-level code under that block, or move parse_line into a module" in done.stderr
    assert not (root / "benchmarks" / "bench_app.py").exists()
