"""Command contenders (perflab.bench.commands): real programs timed as processes, compared by output.

Every test runs real processes: a small C++ program compiled once per session
(tests/native/linecount.cpp), coreutils, /bin/sh.
"""

import os
import shutil
import sys
from pathlib import Path

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.native_programs import compile_cpp

import perflab
from perflab.bench.commands import (
    INNER,
    MAX_RSS,
    SYSTEM,
    USER,
    Command,
    CommandError,
    CommandOperation,
    InnerMetric,
    ProgramComparator,
)
from perflab.bench.comparators import resolve_comparator
from perflab.bench.spec import BenchmarkFileError


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


def test_commands_without_a_file_are_timed_interleaved_with_process_metrics(linecount, lines_file, tmp_path):
    out = tmp_path / "r.json"
    commands = [f"{linecount} {{input}}", f"{linecount}"]  # no {input}: the file comes on standard input
    done = _run_commands(commands, lines_file, out, "--name", "by-path", "--name", "by-stdin", "--warmup", "1", *QUICK)
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
    assert problems.startswith("perflab: 3 problem(s)")
    assert not _processes_running(["sleep", "61.5"])  # the hung program was killed with its worker


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


def test_a_command_with_other_output_is_not_equivalent_with_the_first_difference(linecount, lines_file, tmp_path):
    out = tmp_path / "r.json"
    done = _run_commands([f"{linecount} {{input}}", f"{linecount} --off-by-one {{input}}"], lines_file, out)
    assert done.returncode == 1
    verdict = next(e for e in load_json(out)["equivalence"] if e["contender"].endswith("--off-by-one {input}"))
    assert verdict["status"] == "not equivalent"
    assert verdict["difference"] == "stdout: first difference at index 4: b'20000\\n' != b'20001\\n'"
    assert "NOT EQUIVALENT" in done.stdout


def test_usage_errors_name_the_option(tmp_path):
    assert (
        run_perflab("run")
        .stderr.strip()
        .endswith("give a benchmark file (or a built-in's name), or programs with --command")
    )
    missing = run_perflab("run", "--command", "true {input}", "--input", tmp_path / "nope.txt")
    assert missing.returncode == 2 and f"--input {tmp_path / 'nope.txt'}: no such file" in missing.stderr
    both = run_perflab("run", "json_dumps", "--command", "true")
    assert both.returncode == 2 and "either a benchmark file or --command" in both.stderr
    unbalanced = run_perflab("run", "--command", "echo 'unterminated")
    assert unbalanced.returncode == 2 and "No closing quotation" in unbalanced.stderr


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


def test_output_files_in_the_working_directory_are_compared(tmp_path, bench_file):
    work = tmp_path / "work"
    work.mkdir()
    path = bench_file(
        f"""
        import perflab

        bench = perflab.Benchmark("write", compare="json")

        @bench.case
        def NONE():
            return None

        bench.command("a", 'printf "[1, 2]" > out.json', shell=True, input="none", cwd={str(work)!r},
                      output_files=["out.json"])
        bench.command("b", 'printf "[1, 3]" > out.json', shell=True, input="none", cwd={str(work)!r},
                      output_files=["out.json"])
        """
    )
    out = tmp_path / "r.json"
    assert run_perflab("run", path, "--json", out, *QUICK).returncode == 1
    verdict = next(e for e in load_json(out)["equivalence"] if (e["case"], e["contender"]) == ("NONE", "b"))
    assert (verdict["status"], verdict["difference"]) == (
        "not equivalent",
        "file:out.json: parsed values differ at [1]: 2 != 3",
    )


def test_an_output_file_left_by_another_contender_does_not_pass_as_this_ones(tmp_path, bench_file):
    work = tmp_path / "work"
    work.mkdir()
    path = bench_file(
        f"""
        import perflab

        bench = perflab.Benchmark("write")

        @bench.case
        def NONE():
            return None

        bench.command("writes", 'printf 1 > out.txt', shell=True, input="none", cwd={str(work)!r},
                      output_files=["out.txt"])
        bench.command("forgets", "true", shell=True, input="none", cwd={str(work)!r}, output_files=["out.txt"])
        """
    )
    out = tmp_path / "r.json"
    assert run_perflab("run", path, "--json", out, *QUICK).returncode == 1
    verdict = next(e for e in load_json(out)["equivalence"] if e["contender"] == "forgets")
    assert verdict["status"] == "error"
    assert "output file out.txt was not written" in verdict["difference"]


def test_an_output_file_that_is_the_case_input_is_refused_and_kept(tmp_path, bench_file):
    data = tmp_path / "data.txt"
    data.write_text("keep me")
    path = bench_file(
        f"""
        import perflab

        bench = perflab.Benchmark("inplace")

        @bench.case
        def DATA():
            return {str(data)!r}

        bench.command("a", ["cat"], input="path", cwd={str(tmp_path)!r}, output_files=["data.txt"])
        bench.command("b", ["cat"], input="path", cwd={str(tmp_path)!r}, output_files=["data.txt"])
        """
    )
    out = tmp_path / "r.json"
    assert run_perflab("run", path, "--json", out, *QUICK).returncode == 1
    verdicts = load_json(out)["equivalence"]
    assert verdicts and all(v["status"] == "error" for v in verdicts)
    assert "output file data.txt is the case's input file" in verdicts[0]["difference"]
    assert data.read_text() == "keep me"


def test_program_comparator_compares_exit_status_then_outputs_with_the_declared_comparator():
    compare = ProgramComparator(resolve_comparator("json"))
    same = compare.check({"stdout": b'{"a": 1}', "exit_status": 0}, {"stdout": b'{"a":1}', "exit_status": 0})
    assert same.equivalent and same.note == "stdout: equal as JSON; bytes differ: compact separators"
    status = compare.check({"stdout": b"1", "exit_status": 0}, {"stdout": b"1", "exit_status": 2})
    assert status.difference == "exit status 0 != 2"
    files = compare.check(
        {"stdout": b"1", "exit_status": 0, "file:o": b"[1]"}, {"stdout": b"1", "exit_status": 0, "file:o": b"[2]"}
    )
    assert files.difference == "file:o: parsed values differ at [0]: 1 != 2"
    lines = ProgramComparator(resolve_comparator("lines"))
    assert lines.check({"stdout": b"a\nb\n", "exit_status": 0}, {"stdout": b"b\na\n", "exit_status": 0}).equivalent
    assert not lines.check({"stdout": b"a\nb\n", "exit_status": 0}, {"stdout": b"a\na\n", "exit_status": 0}).equivalent


def test_inner_metric_reads_the_declared_number_and_says_when_it_is_missing():
    metric = InnerMetric(r"took ([0-9.]+) ms", unit="ms")
    assert metric.seconds(b"parsed\ntook 2.5 ms\n", b"") == pytest.approx(0.0025)
    with pytest.raises(CommandError, match="is not in the program's stdout"):
        metric.seconds(b"nothing", b"took 1 ms")
    with pytest.raises(ValueError, match="needs a group"):
        InnerMetric(r"took [0-9]+ ms")
    with pytest.raises(ValueError, match="unit 'h'"):
        InnerMetric(r"(1)", unit="h")


def test_an_operation_runs_the_program_and_measures_its_processes(tmp_path):
    operation = CommandOperation(
        Command((sys.executable, "-c", "import sys; print(len(sys.stdin.read()))"), input="stdin")
    )
    assert operation(b"abc") == {"stdout": b"3\n", "exit_status": 0}
    seconds = operation.times_itself(b"abcd", 3)
    extra = operation.take_extra()
    assert seconds > 0 and extra[USER] + extra[SYSTEM] > 0 and extra[MAX_RSS] > 0
    assert shutil.which("sh")
    echo = CommandOperation(Command(("printf", "%s|", "a b", "{input}"), input="arg"))
    assert echo("x y")["stdout"] == b"a b|x y|"


def test_a_benchmark_declares_commands_or_functions_not_both():
    bench = perflab.Benchmark("mixed")
    bench.contender(len, name="python")
    with pytest.raises(BenchmarkFileError, match="all commands or all functions"):
        bench.command("program", ["wc", "-c"])
    programs = perflab.Benchmark("programs")
    programs.command("program", ["wc", "-c"])
    with pytest.raises(BenchmarkFileError, match="all commands or all functions"):
        programs.contender(len, name="python")
    with pytest.raises(ValueError, match="give a list of arguments, or shell=True"):
        Command("wc -c {input}")
    with pytest.raises(ValueError, match="input='file'"):
        Command(("wc",), input="file")
