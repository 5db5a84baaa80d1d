"""perflab mcp end to end: the MCP SDK's own client over stdio, an assistant's candidate for a
contender verified (accepted) or refuted with its counterexample, and bad arguments as one-line
tool errors."""

from __future__ import annotations

import functools
from pathlib import Path

import anyio
import pytest
from support.mcp_client import QUICK_TIMING, error_text, with_server

# The declared case is sorted, so a candidate that sorts its output agrees with the reference on it:
# only fuzzing (generated inputs) can refute it.
BENCH = """
import perflab

bench = perflab.Benchmark("dedupe", description="Distinct items, in order of first appearance")


@bench.case
def SORTED():
    return [i // 2 for i in range(600)]


@bench.contender
def ordered(items):
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
"""
RIGHT = "def fast(items):\n    return list(dict.fromkeys(items))\n"
WRONG = "def fast(items):\n    return sorted(set(items))\n"


@pytest.fixture
def bench(tmp_path):
    (tmp_path / "bench_dedupe.py").write_text(BENCH)
    return tmp_path


def verify(bench, source: str) -> tuple[dict, list[float]]:
    """verify_candidate's structured result, and the progress the call reported."""
    progress: list[float] = []

    async def talk(client):
        async def report(done, total, message):
            progress.append(done)

        arguments = {"benchmark": "bench_dedupe.py", "contender": "ordered", "candidate_source": source}
        result = await client.call_tool(
            "verify_candidate", {**arguments, "timing": QUICK_TIMING}, progress_callback=report
        )
        assert not result.is_error, result.content
        return result.structured_content

    return with_server(bench, talk), progress


def test_a_correct_candidate_is_accepted_with_its_evidence(bench):
    """~10 s on a quiet machine (30 s at load 12): the server, then perflab compare's fuzzing and
    five timing rounds of two contenders, the least a verdict needs."""
    outcome, progress = verify(bench, RIGHT)
    assert outcome["verdict"] == "accepted", outcome["reason"]
    assert outcome["counterexamples"] == []
    statuses = {entry["case"]: entry["status"] for entry in outcome["equivalence"]}
    assert statuses == {"SORTED": "equivalent", "fuzzing": "equivalent"}
    fuzzed = next(entry for entry in outcome["equivalence"] if entry["case"] == "fuzzing")
    assert fuzzed["evidence"]["generated_inputs"] > 0
    (comparison,) = outcome["comparisons"]
    assert comparison["verdict"] == "faster" and comparison["ratio"].endswith("]")  # an interval, in the one convention
    assert outcome["result"]["schema"] == "perflab.results/2"
    assert progress, "no progress notification"


def test_a_wrong_candidate_is_rejected_with_the_counterexample(bench):
    """~10 s on a quiet machine, as above: the fuzzing that refutes it is the point."""
    outcome, _ = verify(bench, WRONG)
    assert outcome["verdict"] == "rejected", outcome["reason"]
    statuses = {entry["case"]: entry["status"] for entry in outcome["equivalence"]}
    assert statuses == {"SORTED": "equivalent", "fuzzing": "not equivalent"}
    (counterexample,) = outcome["counterexamples"]
    assert counterexample.startswith("fuzzing: not equivalent:") and "counterexample: " in counterexample
    assert outcome["comparisons"][0]["struck"]  # its speed does not count


def test_bad_arguments_are_one_line_tool_errors(bench):
    calls = {
        "unknown contender 'nope' (declared: ordered)": (
            "verify_candidate",
            {"benchmark": "bench_dedupe.py", "contender": "nope", "candidate_source": RIGHT},
        ),
        "candidate_source: line 1: syntax error": (
            "verify_candidate",
            {"benchmark": "bench_dedupe.py", "contender": "ordered", "candidate_source": "def fast(:"},
        ),
        "function: the candidate source defines no top-level function 'quick'": (
            "verify_candidate",
            {"benchmark": "bench_dedupe.py", "contender": "ordered", "candidate_source": RIGHT, "function": "quick"},
        ),
        "benchmark: missing.py: no such benchmark file": (
            "verify_candidate",
            {"benchmark": "missing.py", "contender": "ordered", "candidate_source": RIGHT},
        ),
        "missing.py: no such benchmark file or built-in benchmark": ("run", {"benchmark": "missing.py"}),
        # one case as a string, not a list: the verb's own error, not the argument schema's
        "missing.py: no such benchmark file": ("check", {"benchmark": "missing.py", "against": "main", "case": "C"}),
    }

    async def talk(client):
        return {expected: error_text(await client.call_tool(*call)) for expected, call in calls.items()}

    for expected, error in with_server(bench, talk).items():
        assert expected in error and "\n" not in error, error
        assert "perflab_verify_candidate" not in error  # the file written for the call is not the user's


def test_a_cancelled_call_stops_its_verb(bench):
    """The host cancels a run once it has started: the verb and its workers end."""

    async def talk(client):
        started = anyio.Event()

        async def report(done, total, message):
            if "timing" in (message or ""):  # the workers have started
                started.set()

        async with anyio.create_task_group() as calls:
            timing = {"max_time": 600, "precision": 0.01}
            arguments = {"benchmark": str(bench / "bench_dedupe.py"), "store": False, "timing": timing}
            calls.start_soon(functools.partial(client.call_tool, "run", arguments, progress_callback=report))
            with anyio.fail_after(300):  # a hang guard: the call ended before timing (its error is in the log)
                await started.wait()
            verb = processes_naming(bench)
            assert verb, "the verb had not started"
            family = verb | children(verb)
            calls.cancel_scope.cancel()
        with anyio.fail_after(120):  # a hang guard, not a measurement: the verb's clean-up takes a moment
            while family & alive():
                await anyio.sleep(0.2)

    with_server(bench, talk)


def alive() -> set[int]:
    return {int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()}


def processes_naming(directory) -> set[int]:
    """The processes whose command line names a file in ``directory``: the verb."""
    found = set()
    for pid in alive():
        try:
            if str(directory).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(pid)
        except OSError:  # ended meanwhile
            continue
    return found


def children(parents: set[int]) -> set[int]:
    """The processes whose parent is one of ``parents``: the verb's workers."""
    found = set()
    for pid in alive():
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent in parents:
            found.add(pid)
    return found


def test_a_tool_argument_is_never_read_as_an_option(bench):
    """Each call once ran a shell command or attached a sampler (issue 42): a value that starts with
    '-' is a name, refused as one."""
    touched = bench / "touched"
    command = f"--command=touch {touched}"
    calls = {
        "--command=touch": ("run", {"benchmark": command}),
        "unknown case '--command=touch": ("run", {"benchmark": "bench_dedupe.py", "case": command}),
        "--pid=1": ("profile", {"benchmark": "--pid=1"}),
        "--against": ("check", {"benchmark": "bench_dedupe.py", "against": command}),
    }

    async def talk(client):
        return {expected: error_text(await client.call_tool(*call)) for expected, call in calls.items()}

    for expected, error in with_server(bench, talk).items():
        assert expected in error and "\n" not in error, error
        assert "attach" not in error and "permission" not in error.lower(), error
    assert not touched.exists()
