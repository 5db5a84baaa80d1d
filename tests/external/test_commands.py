"""Command contenders (perflab.bench.commands): real programs timed as processes, compared by output.

Every test runs real processes: a small C++ program compiled once per session
(tests/native/linecount.cpp), coreutils, /bin/sh.
"""

import os
from pathlib import Path

import pytest
from support.cli import QUICK, VERDICT, load_json, run_perflab
from support.native_programs import compile_cpp

from perflab.bench.commands import (
    INNER,
    MAX_RSS,
    SYSTEM,
    USER,
)


@pytest.fixture(scope="session")
def linecount(tmp_path_factory):
    return compile_cpp("linecount", tmp_path_factory.mktemp("native"))


@pytest.fixture
def lines_file(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"line {i}\n" for i in range(20_000)))
    return path


def _run_commands(commands: list[str], lines_file: Path, out: Path, *options: str):
    """``perflab run --command C ... --input FILE --json OUT OPTIONS``, at the quick test settings."""
    arguments = [part for command in commands for part in ("--command", command)]
    return run_perflab("run", *arguments, "--input", lines_file, "--json", out, *(options or QUICK))


def _processes_running(argv: list[str]) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[:-1] == [
                part.encode() for part in argv
            ]:
                found.append(entry)
        except OSError:
            continue
    return found


def test_commands_without_a_file_are_timed_interleaved_with_process_metrics(linecount, lines_file, tmp_path):
    out = tmp_path / "r.json"
    commands = [f"{linecount} {{input}}", f"{linecount}"]  # no {input}: the file comes on standard input
    done = _run_commands(
        commands,
        lines_file,
        out,
        "--name",
        "by-path",
        "--name",
        "by-stdin",
        "--warmup",
        "1",
        *VERDICT,
    )
    assert done.returncode == 0, done.stderr
    result = load_json(out)
    assert [c["contender"] for c in result["cells"]] == ["by-path", "by-stdin"]
    assert result["work"]["lines.txt"] == ["B", lines_file.stat().st_size]  # MB/s from the input's size
    assert {e["contender"]: e["status"] for e in result["equivalence"]} == {
        "by-path": "reference",
        "by-stdin": "equivalent",
    }
    for cell in result["cells"]:
        measured = [run for run in cell["runs"] if not run["calibration"]]
        assert len(measured) >= 5 and all(len(run["warmups"]) == 1 for run in measured)
        for run in measured:  # one set of process metrics per value
            assert {USER, SYSTEM, MAX_RSS} <= set(run["extra"])
            assert all(len(values) == len(run["values"]) for values in run["extra"].values())
    assert result["comparisons"][0]["contender"] == "by-stdin"
    assert "user CPU/run" in done.stdout and "MB/s" in done.stdout


def test_a_missing_failing_or_hanging_command_is_one_line_and_the_others_are_kept(linecount, lines_file, tmp_path):
    out = tmp_path / "r.json"
    commands = [f"{linecount} {{input}}", "perflab-no-such-program {input}", f"{linecount} --exit 4 {{input}}"]
    done = _run_commands([*commands, "sleep 61.5"], lines_file, out, *QUICK[:-2], "--timeout", "3")
    assert done.returncode == 1
    errors = {cell["contender"]: cell["error"] for cell in load_json(out)["cells"]}
    assert "command not found: 'perflab-no-such-program'" in errors["perflab-no-such-program {input}"]
    assert "exited with status 4" in errors[f"{linecount} --exit 4 {{input}}"]
    assert "timed out after 3 s" in errors["sleep 61.5"]
    reference = load_json(out)["cells"][0]
    assert reference["error"] is None and reference["estimates"] is not None
    problems = done.stderr.strip().splitlines()[-1]
    # The three failing commands, each named (run also fuzzes: the exit-4 command is a fourth problem there).
    assert problems.startswith("perflab: ") and "problem(s)" in problems
    for command in commands[1:] + ["sleep 61.5"]:
        assert command in problems, (command, problems)
    assert not _processes_running(["sleep", "61.5"])  # the hung program was killed with its worker


def test_a_command_with_other_output_is_not_equivalent_with_the_first_difference(linecount, lines_file, tmp_path):
    out = tmp_path / "r.json"
    done = _run_commands([f"{linecount} {{input}}", f"{linecount} --off-by-one {{input}}"], lines_file, out)
    assert done.returncode == 1
    verdict = next(
        e
        for e in load_json(out)["equivalence"]
        if e["contender"].endswith("--off-by-one {input}") and e["case"] != "fuzzing"  # the declared case's check
    )
    assert verdict["status"] == "not equivalent"
    assert verdict["difference"] == "stdout: first difference at index 4: reference b'20000\\n', contender b'20001\\n'"
    assert "NOT EQUIVALENT" in done.stdout


def test_a_benchmark_file_declares_commands_with_an_inner_metric_and_environment(
    linecount, lines_file, tmp_path, bench_file
):
    path = bench_file(
        f"""
        import perflab

        bench = perflab.Benchmark("count", compare="lines")
        inner = perflab.InnerMetric(r"count: ([0-9]+) ns", unit="ns", stream="stderr")

        @bench.case(bytes=lambda data: len(data))
        def LINES():
            return open({str(lines_file)!r}, "rb").read()   # bytes: written to a file once per worker

        bench.command("native", [{str(linecount)!r}, "{{input}}"], inner=inner)
        bench.command(
            "shell", 'wc -l < {{input}} | tr -d " "; echo "count: $NS ns" >&2', shell=True, env={{"NS": "1000"}},
            inner=inner,
        )
        """
    )
    out, scratch = tmp_path / "r.json", tmp_path / "tmp"
    scratch.mkdir()
    done = run_perflab("run", path, "--json", out, *QUICK, env={"TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stderr
    assert not list(scratch.glob("perflab-input-*"))  # each worker's copy of the input is removed
    result = load_json(out)
    shell = [run for run in result["cells"][1]["runs"] if not run["calibration"]]
    assert all(value == pytest.approx(1e-6) for run in shell for value in run["extra"][INNER])
    native = [run for run in result["cells"][0]["runs"] if not run["calibration"]]
    # the inner phase is part of the process: never longer than the process's wall time
    assert all(0 < inner < wall for run in native for inner, wall in zip(run["extra"][INNER], run["values"]))
    assert "inner vs native" in done.stdout
