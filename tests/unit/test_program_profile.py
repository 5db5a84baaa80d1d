"""Whole programs: `perflab profile -- python app.py`, `--pid`, `perflab isolate`, suggestions, and
the loop from a real program (tests/programs/twitter_report) to verdicts with equivalence."""

import sys
from collections import Counter
from pathlib import Path

from perflab.isolate.benchmark_file import choose_comparator
from perflab.profile.program import PythonCommand, exit_status, python_command, trim_launcher
from perflab.profile.suggestions import TABLE, for_function


def test_python_commands_are_recognized_and_others_are_not(tmp_path):
    app = str(tmp_path / "app.py")
    Path(app).write_text("pass\n")
    assert python_command(["python", "-u", "-X", "dev", app, "-x"]) == PythonCommand(
        "python", ("-u", "-X", "dev"), (app, "-x")
    )
    assert python_command([sys.executable, "-m", "pkg.mod", "a"]).target == ("-m", "pkg.mod", "a")
    assert python_command(["ls", "-l"]) is None
    assert exit_status(-9) == 137 and exit_status(3) == 3


def test_launcher_frames_are_trimmed_and_other_threads_kept():
    launcher = "run_program (/x/perflab/bench/worker/program.py:30)"
    stacks = Counter(
        {
            (
                "<module> (<frozen runpy>:1)",
                "main (/x/perflab/bench/worker/program.py:40)",
                launcher,
                "run_path (<frozen runpy>:291)",
                "_run_code (<frozen runpy>:88)",
                "<module> (app.py:1)",
            ): 5,
            ("main (/x/perflab/bench/worker/program.py:40)",): 2,  # waiting for the go byte
            ("_run_module_as_main (<frozen runpy>:198)", "_find_and_load (<frozen importlib._bootstrap>:1)"): 4,
            ("_bootstrap (threading.py:990)", "work (app.py:9)"): 3,
        }
    )
    kept, dropped = trim_launcher(stacks)
    assert kept == Counter({("<module> (app.py:1)",): 5, ("_bootstrap (threading.py:990)", "work (app.py:9)"): 3})
    assert dropped == 6  # the launcher's start-up and wait


def test_comparator_follows_the_return_type():
    assert choose_comparator({"builtins.str": 3}, True)[0] == "json"
    assert choose_comparator({"builtins.str": 3}, False)[0] == "exact"
    assert choose_comparator({"builtins.dict": 3}, False)[0] == "exact"
    assert choose_comparator({"app.Point": 1}, False)[0] == "attributes"


def test_suggestion_table_entries_name_a_builtin_and_drop_ins_define_their_contenders():
    from perflab import builtins

    for entry in TABLE:
        assert builtins.path_of(entry.proven_by) is not None, entry.proven_by
        for name, source in entry.contenders.items():
            assert f"def {name}():" in source and "    return call_all" in source  # a set-up
    assert for_function("json:dumps") is not None and for_function("mine:f") is None


def test_suggestions_match_hot_calls_not_imports():
    from perflab.profile.suggestions import matches

    loads, logging_ = TABLE[1], TABLE[2]
    assert matches(loads, "JSONDecoder.raw_decode (<stdlib>/json/decoder.py:343)")
    assert matches(loads, "loads (<stdlib>/json/__init__.py:299)")
    assert not matches(loads, "dumps (<stdlib>/json/__init__.py:183)")
    assert not matches(loads, "<module> (<stdlib>/json/decoder.py:1)")
    assert matches(logging_, "Logger.info (<stdlib>/logging/__init__.py:1479)")
