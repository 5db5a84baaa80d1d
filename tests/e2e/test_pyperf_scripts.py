"""pyperf scripts run unchanged by perflab: the Runner's API, pyperformance's real benchmarks,
comparisons across revisions and interpreters, and bad input."""

import subprocess

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.pyperf_scripts_shared import SCRIPT, write_script  # noqa: F401 - fixtures are found by name

from perflab import pyperformance_benchmarks


def cells(result: dict) -> dict:
    return {(cell["case"], cell["contender"]): cell for cell in result["cells"]}


# pyperformance benchmarks that need nothing beyond the standard library and pyaes (perflab[cases]).
PYPERFORMANCE = [
    "json_dumps",
    "json_loads",
    "logging",
    "crypto_pyaes",
    "nbody",
    "richards",
    "float",
    "fannkuch",
    "spectral_norm",
    "nqueens",
    "deepcopy",
    "generators",
    "coroutines",
    "regex_v8",
    # MANIFEST names whose script needs the metadata file's extra_opts
    "pickle_dict",
    "argparse_subparsers",
]


def test_runner_api_is_recorded_and_timed_by_perflab(tmp_path):
    script = write_script(tmp_path)
    done = run_perflab("run", script, *QUICK, "--json", tmp_path / "out.json")
    assert done.returncode == 0, done.stderr
    result = load_json(tmp_path / "out.json")
    assert result["benchmark"] == "bm_script"
    found = cells(result)
    assert set(found) == {("sum", "script"), ("fixed", "script"), ("join", "script"), ("tick", "script")}
    # bench_time_func: the script's own time per iteration, divided by inner_loops
    fixed = found[("fixed", "script")]["estimates"]["median"]
    assert fixed["value"] == pytest.approx(0.001 / 4)
    assert all(cell["estimates"]["median"]["value"] > 0 for cell in found.values())
    assert {e["status"] for e in result["equivalence"]} == {"reference"}
    # pyperf's metadata (the Runner's and each benchmark's) is kept with the results
    described = result["metadata"]["benchmark"]
    assert described["description"] == "a pyperf script <with> markup"
    assert described["cases"]["join"] == {"description": "a pyperf script <with> markup"}
    summed = described["cases"]["sum"]
    assert summed["unit"] == "second" and summed["loops_hint"] == 3 and summed["odd"].startswith("<object object")


def test_script_arguments_and_pyperf_options_are_parsed(tmp_path, monkeypatch):
    script = write_script(tmp_path)
    small = run_perflab("run", script, *QUICK, "--case", "sum", "--json", tmp_path / "small.json")
    monkeypatch.setenv("PERFLAB_PYPERF_ARGS", "--size 100000 --fast -p 3")
    large = run_perflab("run", script, *QUICK, "--case", "sum", "--json", tmp_path / "large.json")
    assert small.returncode == 0 and large.returncode == 0, large.stderr
    median = lambda name: cells(load_json(tmp_path / name))[("sum", "script")]["estimates"]["median"]
    # Point medians: the 1,000x larger input reads >10x slower whatever the load; two rounds' intervals
    # need not separate under load (seen in CI: the small run's upper end at 43 ms).
    assert median("large.json")["value"] > 10 * median("small.json")["value"]
    monkeypatch.setenv("PERFLAB_PYPERF_ARGS", "--size many")
    wrong = run_perflab("run", script, *QUICK)
    assert wrong.returncode == 2
    assert "bm_script.py" in wrong.stderr and "SystemExit" in wrong.stderr


def test_a_script_that_times_nothing_is_bad_input(tmp_path):
    script = write_script(tmp_path, "import pyperf\nrunner = pyperf.Runner()\n")
    done = run_perflab("run", script, *QUICK)
    assert done.returncode == 2
    assert "the pyperf script asked to time nothing" in done.stderr


def test_unknown_pyperformance_benchmark_is_bad_input():
    done = run_perflab("run", "pyperformance:no_such_thing", *QUICK)
    assert done.returncode == 2
    assert "no such pyperformance benchmark" in done.stderr and "json_dumps" in done.stderr


def test_compare_revisions_does_not_compare_return_values(tmp_path):
    """pyperf ignores what a timed function returns (asyncio_websockets returns its own elapsed
    time): across revisions, a changed return value is not a difference."""
    script = write_script(
        tmp_path,
        """
        import pyperf

        def work(n):
            return [i * i for i in range(n)]

        runner = pyperf.Runner()
        runner.bench_func("squares", work, 200)
    """,
    )
    git = lambda *args: subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)
    git("init", "-q")
    git("add", script.name)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    script.write_text(script.read_text().replace("i * i", "i * i + 1"))
    revisions = ["--rev", "HEAD", "--rev", "WORKTREE"]
    same = run_perflab("compare", script, *revisions, *QUICK, "--no-store")  # the working tree's script on both
    assert f"{script.name} differs at HEAD: the given file runs on every revision's code" in same.stderr
    done = run_perflab(
        "compare", script, *revisions, "--benchmark-from-revision", *QUICK, "--json", tmp_path / "c.json"
    )
    assert done.returncode == 0, done.stderr
    verdicts = {e["contender"]: e for e in load_json(tmp_path / "c.json")["equivalence"]}
    assert verdicts["WORKTREE"]["status"] == "equivalent"
    assert "not compared" in verdicts["WORKTREE"]["note"]


def test_the_script_is_timed_inside_its_call_before_its_clean_up(tmp_path):
    """pyperf times inside bench_func: a script that removes its temporary directory afterwards
    (pathlib's, dulwich_log's) is timed while the directory exists, in every job on a case."""
    script = write_script(
        tmp_path,
        """
        import os, shutil, tempfile
        import pyperf

        def read_all(directory):
            return sum(len(open(os.path.join(directory, name)).read()) for name in os.listdir(directory))

        runner = pyperf.Runner()
        directory = tempfile.mkdtemp()
        open(os.path.join(directory, "a"), "w").write("abc")
        try:
            runner.bench_func("read", read_all, directory)
            runner.bench_time_func("self-timed", lambda loops: 0.001 * loops + 0 * read_all(directory))
        finally:
            shutil.rmtree(directory)
    """,
    )
    done = run_perflab("run", script, *QUICK, "--json", tmp_path / "out.json")
    assert done.returncode == 0, done.stderr
    found = cells(load_json(tmp_path / "out.json"))
    assert set(found) == {("read", "script"), ("self-timed", "script")}
    assert all(cell["estimates"]["median"]["value"] > 0 for cell in found.values())


def test_a_script_that_blocks_a_c_accelerator_times_the_pure_python_module(tmp_path):
    """As in a fresh interpreter, the script's `import pickle` after `sys.modules["_pickle"] = None`
    is the pure-Python module (pyperformance's pickle_pure_python), though the worker imported
    pickle itself before the script ran."""
    script = write_script(
        tmp_path,
        """
        import sys
        sys.modules["_pickle"] = None
        import pickle
        import pyperf

        if pickle.Pickler.__module__ != "pickle":
            raise RuntimeError("Unexpected C accelerators for pickle")
        runner = pyperf.Runner()
        runner.bench_func("dumps", pickle.dumps, list(range(100)))
    """,
    )
    done = run_perflab("run", script, *QUICK, "--json", tmp_path / "out.json")
    assert done.returncode == 0, done.stderr
    assert cells(load_json(tmp_path / "out.json"))[("dumps", "script")]["estimates"]["median"]["value"] > 0


@pytest.mark.skipif(not pyperformance_benchmarks.names(), reason="pyperformance is not installed")
@pytest.mark.parametrize("name", PYPERFORMANCE)
def test_real_pyperformance_benchmarks_run_unchanged(tmp_path, name):
    out = tmp_path / "out.json"
    done = run_perflab(
        "run",
        f"pyperformance:{name}",
        "--precision",  # stops by the rule (1 round at a loose target), not by the clock: --max-time is
        "50",  # a bound, and a loaded machine must still time every case
        # The test asks that the script runs and is timed, not for a verdict: the fewest calls that
        # time a case (a calibration round and one round of 2 values, no warm-up values; a call of
        # fannkuch is ~0.5 CPU-s).
        "--debug-rounds",
        "1",
        "--warmup",
        "0",
        "--max-time",
        "60",
        "--values",
        "2",
        "--value-time",
        "0.002",
        "--timeout",
        "120",
        "--json",
        out,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = load_json(out)
    assert result["benchmark"] == name
    assert result["cells"] and all(cell["estimates"]["median"]["value"] > 0 for cell in result["cells"])


def test_profile_reaches_the_scripts_function(tmp_path):
    """perflab profile samples the benchmarked function, below the recording Runner's frames."""
    script = write_script(
        tmp_path,
        """
        import json
        import pyperf

        def encode(obj):
            return json.dumps(obj)

        if __name__ == "__main__":
            pyperf.Runner().bench_func("encode", encode, {"a": list(range(200))})
    """,
    )
    done = run_perflab(
        "profile",
        script,
        "--case",
        "encode",
        "--contender",
        "script",
        "--samples",
        "200",
        "--rate",
        "200",
        "--runs",
        "2",
        "--timeout",
        "30",
        "--folded",
        tmp_path / "p.folded",
    )
    assert done.returncode == 0, done.stderr
    samples = [line.rsplit(" ", 1) for line in (tmp_path / "p.folded").read_text().splitlines()]
    total = sum(int(count) for _, count in samples)
    in_encode = sum(int(count) for stack, count in samples if stack.startswith("encode (<project>/bm_script.py"))
    # The rest is the harness between calls (the worker's loop, the recorder's own frames, both
    # trimmed to [measured_region]): 2% of samples quiet, 15% seen under a load of 20, so a threshold
    # on it would test the load. Any other root is a torn stack of py-spy --nonblocking (it reads the
    # stack while the target runs): rare, never a library frame of the recorder's (contextlib's).
    elsewhere = [(stack, count) for stack, count in samples if not stack.startswith(("encode (", "[measured_region]"))]
    assert sum(int(count) for _, count in elsewhere) <= 0.05 * total, elsewhere
    assert not any("contextlib.py" in stack for stack, _ in samples), samples
    assert in_encode > 0.5 * total, samples
    # the recorder's frames are harness, like the worker's loop: the script's function is the root
    assert not any("pyperf_script.py" in stack for stack, _ in samples)


def test_pyperf_folder_keeps_every_run_and_pyperfs_metadata(tmp_path):
    """--pyperf DIR: each pyperf script's file is named after it (not every one script.json), a
    file already there is refused before anything is measured, and pyperf's tools show the
    machine, the interpreter and the loops."""
    import sys

    first = write_script(tmp_path, "import pyperf\npyperf.Runner().bench_func('a', sum, [1, 2])\n", "bm_first.py")
    second = write_script(tmp_path, "import pyperf\npyperf.Runner().bench_func('b', max, [1, 2])\n", "bm_second.py")
    folder = tmp_path / "pp"
    for script in (first, second):
        done = run_perflab("run", script, *QUICK, "--pyperf", folder, "--no-store")
        assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in folder.iterdir()) == ["bm_first.json", "bm_second.json"]
    kept = (folder / "bm_first.json").read_bytes()
    again = run_perflab("run", first, *QUICK, "--pyperf", folder, "--no-store")
    assert again.returncode == 2 and "bm_first.json exists" in again.stderr and "checking" not in again.stderr
    assert (folder / "bm_first.json").read_bytes() == kept
    shown = subprocess.run(
        [sys.executable, "-m", "pyperf", "metadata", folder / "bm_first.json"], capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    for key in ("python_version", "python_implementation", "cpu_count", "hostname", "platform", "date"):
        assert f"- {key}: " in shown.stdout, (key, shown.stdout)
    stats = subprocess.run(
        [sys.executable, "-m", "pyperf", "stats", folder / "bm_first.json"], capture_output=True, text=True
    )
    assert "Loop iterations per value: " in stats.stdout and "Number of warmup per run: " in stats.stdout, stats.stdout


def test_work_a_script_runs_beside_its_calls_is_accepted_as_under_pyperf(tmp_path):
    """A server thread the script starts (fastapi's) does the work of every call and outlives it:
    pyperf times it, and so does perflab."""
    script = write_script(
        tmp_path,
        """
        import queue, threading
        import pyperf

        requests, replies = queue.Queue(), queue.Queue()

        def serve():
            while True:
                n = requests.get()
                replies.put(sum(i * i for i in range(n)))

        def ask(n):
            requests.put(n)
            return replies.get()

        threading.Thread(target=serve, name="server", daemon=True).start()
        pyperf.Runner().bench_func("request", ask, 20000)
    """,
    )
    done = run_perflab("run", script, *QUICK, "--json", tmp_path / "out.json")
    assert done.returncode == 0, done.stderr
    (cell,) = load_json(tmp_path / "out.json")["cells"]
    assert not cell["error"] and cell["estimates"]["median"]["value"] > 0


def test_a_timed_function_that_raises_is_its_cases_error(tmp_path):
    """The check calls nothing of a pyperf script (nothing is compared): a timed function that
    raises is the error of its case when it is timed, with the script's line; the others are timed."""
    script = write_script(
        tmp_path,
        """
        import pyperf

        def bad():
            return 1 / 0

        runner = pyperf.Runner()
        runner.bench_func("good", sum, [1, 2])
        runner.bench_func("bad", bad)
    """,
    )
    done = run_perflab("run", script, *QUICK, "--json", tmp_path / "out.json")
    assert done.returncode == 1
    found = cells(load_json(tmp_path / "out.json"))
    assert (
        "ZeroDivisionError" in found[("bad", "script")]["error"]
        and "bm_script.py:5" in found[("bad", "script")]["error"]
    )
    assert not found[("good", "script")]["error"] and found[("good", "script")]["estimates"]["median"]["value"] > 0
