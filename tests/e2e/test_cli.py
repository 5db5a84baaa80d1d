"""The command line end to end, in real subprocesses: results, outputs and every bad input."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest
from support.cli import QUICK, load_json, run_perflab, start_until

from perflab.results.model import RunResult

SUM_BENCH = """
import perflab
bench = perflab.Benchmark("sums", compare="exact")

@bench.case(items=200)
def SMALL():
    return list(range(200))

@bench.case(items=2000)
def LARGE():
    return list(range(2000))

@bench.contender
def builtin(xs):
    return sum(xs)

@bench.contender
def loop(xs):
    total = 0
    for x in xs:
        total += x
    return total
{extra}
"""


def sums(extra=""):
    return SUM_BENCH.replace("{extra}", extra)


@pytest.fixture(scope="module")
def summed(tmp_path_factory):
    """One quick run of the sums benchmark, its JSON results (r.json) and pyperf files (pp/) in
    the directory returned with it: the tests that check different things about it share it."""
    folder = tmp_path_factory.mktemp("sums")
    (folder / "bench.py").write_text(sums())
    result = run_perflab("run", folder / "bench.py", *QUICK, "--json", folder / "r.json", "--pyperf", folder / "pp")
    assert result.returncode == 0, result.stderr
    return result, folder


def test_run_prints_a_table_with_intervals_verdicts_and_equivalence(summed):
    result, folder = summed
    out = folder / "r.json"
    assert "SMALL" in result.stdout and "LARGE" in result.stdout
    assert "items/s" in result.stdout
    assert "slower" in result.stdout  # a Python loop is much slower than sum()
    assert "equivalent" in result.stdout
    # The loop against sum() as a factor of times with its direction; times with their bounds, never ± x%.
    table = result.stdout.split("precision target")[0]  # the target itself is a ± percentage
    assert re.search(r"\d+\.\d+x", table) and "±" not in table
    data = load_json(out)
    assert data["schema"] == "perflab.results/2"
    assert {c["contender"] for c in data["comparisons"]} == {"loop"}
    assert all(len(run["values"]) == 5 for cell in data["cells"] for run in cell["runs"])


def test_results_json_round_trips_with_metadata(summed):
    out = summed[1] / "r.json"
    result = RunResult.load(out)
    assert result.to_json() == load_json(out)
    meta = result.metadata
    assert meta["python"]["version"].count(".") == 2 and "build" in meta["python"]
    assert meta["perflab_version"] and meta["machine"]["cpu_model"]
    assert result.settings["precision"] == 0.5
    cell = result.cell("SMALL", "loop")
    assert cell.loops and cell.runs[0].round == 0 and cell.estimates.median.low <= cell.estimates.median.value


def test_the_versions_of_the_packages_a_contender_imports_are_recorded(bench_file, tmp_path):
    import importlib.metadata

    # numpy is imported, not used: numpy.sum wraps past 2**63, which fuzzing (now in run) finds
    uses_a_package = sums("\n@bench.contender\ndef via_numpy(xs):\n    import numpy\n    return sum(xs)\n")
    out = tmp_path / "r.json"
    result = run_perflab("run", bench_file(uses_a_package), *QUICK, "--case", "SMALL", "--json", out)
    assert result.returncode == 0, result.stderr
    assert load_json(out)["metadata"]["packages"]["numpy"] == importlib.metadata.version("numpy")


def test_selecting_cases_and_contenders_keeps_the_reference(bench_file, tmp_path):
    out = tmp_path / "r.json"
    result = run_perflab("run", bench_file(sums()), *QUICK, "--case", "LARGE", "--contender", "loop", "--json", out)
    assert result.returncode == 0, result.stderr
    cells = {(c["case"], c["contender"]) for c in load_json(out)["cells"]}
    assert cells == {("LARGE", "builtin"), ("LARGE", "loop")}


def test_not_equivalent_contender_is_flagged_with_the_first_difference(bench_file):
    path = bench_file(sums("\n@bench.contender\ndef off_by_one(xs):\n    return sum(xs) + (len(xs) > 1000)\n"))
    result = run_perflab("run", path, *QUICK)
    assert result.returncode == 1
    assert "NOT EQUIVALENT" in result.stdout
    assert "LARGE/off_by_one: reference 1999000, contender 1999001" in result.stdout
    assert "invalid (not equivalent)" in result.stdout


def test_pyperf_export_is_read_by_the_real_pyperf(summed):
    pp = summed[1] / "pp"
    compare = subprocess.run(
        [sys.executable, "-m", "pyperf", "compare_to", pp / "builtin.json", pp / "loop.json"],
        capture_output=True,
        text=True,
    )
    assert compare.returncode == 0, compare.stderr
    assert "SMALL" in compare.stdout and "slower" in compare.stdout
    stats = subprocess.run([sys.executable, "-m", "pyperf", "stats", pp / "loop.json"], capture_output=True, text=True)
    assert stats.returncode == 0 and "Number of value per run: 5" in stats.stdout


def test_builtin_runs_by_name_and_is_listed():
    listing = run_perflab("list")
    assert "json_dumps" in listing.stdout
    result = run_perflab("run", "json_dumps", "--case", "NESTED", "--contender", "orjson", *QUICK)
    assert result.returncode == 0, result.stderr
    assert "compact separators" in result.stdout and "faster" in result.stdout


def test_every_verb_has_help_with_examples():
    for verb in ("run", "demo", "list"):
        result = run_perflab(verb, "--help")
        assert result.returncode == 0 and "examples:" in result.stdout


# --- bad input: one line naming what and where, the rest goes on, non-zero exit -------------


@pytest.mark.parametrize(
    "source, expected",
    [
        ("def broken(:\n", "bench.py:1: syntax error"),
        ("import perflab\nimport missing_module_xyz\n", "bench.py:2: ModuleNotFoundError"),
    ],
)
def test_broken_benchmark_files(bench_file, source, expected):
    result = run_perflab("run", bench_file(source))
    assert result.returncode == 2
    assert expected in result.stderr and result.stderr.count("\n") == 1


def test_missing_file_or_unknown_builtin():
    result = run_perflab("run", "no_such_bench.py")
    assert result.returncode == 2 and "no such benchmark file or built-in" in result.stderr


@pytest.mark.parametrize("option, name", [("--case", "HUGE"), ("--contender", "numpy")])
def test_unknown_case_or_contender(bench_file, option, name):
    result = run_perflab("run", bench_file(sums()), option, name)
    assert result.returncode == 2 and f"unknown {option[2:]} '{name}'" in result.stderr


# A contender failing each way (its body, what is said of it), all in one run with FLAKY: each
# test looks at its own (a failure of any cell is the exit code 1: RunResult.failures).
FAILING = {
    "raising": ("raise ValueError('boom')", "contender 'raising' raised ValueError: boom"),
    "killed": ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "killed by signal SIGKILL"),
    "hanging": ("import time; time.sleep(3600)", "timed out after 3 s"),
}
FLAKY = """
calls = 0
@bench.contender
def flaky(xs):
    global calls
    calls += 1
    if calls > 5:
        raise RuntimeError("gave up after five calls")
    return sum(xs)
"""


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """One quick run, with a 3 s timeout, of the sums benchmark with the FAILING contenders and
    FLAKY: its process and its JSON results."""
    folder = tmp_path_factory.mktemp("failing")
    extra = "".join(f"\n@bench.contender\ndef {name}(xs):\n    {body}\n" for name, (body, _) in FAILING.items())
    (folder / "bench.py").write_text(sums(extra + FLAKY))
    options = QUICK[:-1] + ["3"]  # a 3 s timeout
    result = run_perflab("run", folder / "bench.py", *options, "--json", folder / "r.json")
    return result, load_json(folder / "r.json")


@pytest.mark.parametrize("name", FAILING)
def test_failing_contenders_are_reported_and_the_rest_is_measured(failing, name):
    result, data = failing
    expected = FAILING[name][1]
    assert result.returncode == 1
    assert expected in " ".join(result.stdout.split())  # rich wraps long lines
    measured = {(c["case"], c["contender"]) for c in data["cells"] if c["runs"]}
    assert {("SMALL", "loop"), ("LARGE", "loop")} <= measured
    errors = [c["error"] for c in data["cells"] if c["contender"] == name and c["error"]]
    assert errors and all(expected in error for error in errors)
    if "ValueError" in expected:  # user code raised: the line in the benchmark file is named
        assert all("bench.py:" in error for error in errors)


def test_contender_that_fails_only_while_timed(failing):
    """Equivalence passes (first call), then the timed loop raises: reported, rest measured."""
    result, data = failing
    assert result.returncode == 1
    assert "gave up after five calls" in result.stdout
    errors = [c["error"] for c in data["cells"] if c["contender"] == "flaky"]
    assert errors and all("gave up after five calls" in (error or "") for error in errors)
    assert all(c["estimates"] for c in data["cells"] if c["contender"] in ("builtin", "loop"))


# A contender that sleeps: seconds of timing that take no CPU from a shared machine.
SLEEP_BENCH = """
import time
import perflab
bench = perflab.Benchmark("sleeps")

@bench.case
def SHORT():
    return 0.0005

@bench.contender
def sleep(seconds):
    time.sleep(seconds)
    return seconds
"""


def test_ctrl_c_keeps_what_was_measured(bench_file, tmp_path):
    out = tmp_path / "r.json"
    # ±0.01% is never reached by sleeps in ten seconds: the run is still timing when interrupted.
    command = ["run", bench_file(SLEEP_BENCH), "--max-time", "60", "--precision", "0.01", "--json", out]
    # Interrupt once a round has been recorded: the live display is off when not a terminal, so
    # wait for timing to begin, then on time (generously: a round takes a few seconds when loaded).
    process, _ = start_until(command, tmp_path, "timing", dict(os.environ))
    time.sleep(10)
    process.send_signal(signal.SIGINT)
    assert process.wait(60) == 130
    assert process.stdout is not None and "interrupted" in process.stdout.read()
    data = load_json(out)
    assert data["interrupted"] and any(cell["runs"] for cell in data["cells"])


def test_ctrl_c_that_passed_through_an_exec_of_a_string_still_exits_130(bench_file):
    """CPython marks a KeyboardInterrupt that passes through ``exec`` of a string as unhandled even
    when caught, and then exits by SIGINT (-2) instead of perflab's 130: Ctrl-C during start-up often
    passes through scipy's imports, which use one (seen in CI). A file raising it through ``exec``
    stands for Ctrl-C arriving there, without a signal's timing."""
    result = run_perflab("run", bench_file('import perflab\nexec("raise KeyboardInterrupt")\n'), *QUICK)
    assert result.returncode == 130 and result.stderr.strip() == "perflab: interrupted", result


def test_a_benchmark_file_edited_during_the_run_is_called_out(bench_file, tmp_path):
    path = bench_file(sums())
    out = tmp_path / "r.json"
    # Edited once timing has begun (a fixed sleep raced a slow start on a loaded machine): the
    # calibration round and two rounds of four cells, a dozen worker processes, are still to come.
    process, _ = start_until(["run", path, *QUICK, "--json", out], tmp_path, "timing", dict(os.environ))
    path.write_text(sums("# edited while perflab was measuring\n"))
    assert process.wait(300) == 1
    assert process.stdout is not None and "changed during the run" in " ".join(process.stdout.read().split())
    assert load_json(out)["metadata"]["changed_during_run"] == [str(path)]
