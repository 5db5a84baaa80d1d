"""Command contenders (perflab.bench.commands): real programs timed as processes, compared by output.

Every test runs real processes: a small C++ program compiled once per session
(tests/native/linecount.cpp), coreutils, /bin/sh.
"""

import pytest
from support.cli import QUICK, load_json, run_perflab

import perflab
from perflab.bench.commands import (
    Command,
)
from perflab.bench.spec import BenchmarkFileError


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
        "file:out.json: parsed values differ at [1]: reference 2, contender 3",
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
    # The declared case's check (run also fuzzes, under case "fuzzing"; that is not what this pins).
    verdict = next(e for e in load_json(out)["equivalence"] if e["contender"] == "forgets" and e["case"] == "NONE")
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
    verdicts = [v for v in load_json(out)["equivalence"] if v["case"] == "DATA"]  # the declared case's checks
    assert verdicts and all(v["status"] == "error" for v in verdicts)
    assert "output file data.txt is the case's input file" in verdicts[0]["difference"]
    assert data.read_text() == "keep me"


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
