"""Whole programs: `perflab profile -- python app.py`, `--pid`, `perflab isolate`, suggestions, and
the loop from a real program (tests/programs/twitter_report) to verdicts with equivalence."""

import glob
import os
import select
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import load_json, run_perflab

import perflab
from perflab.isolate.benchmark_file import choose_comparator
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.program import PythonCommand, exit_status, python_command, trim_launcher
from perflab.profile.sampler import find_py_spy
from perflab.profile.shares import frame_shares
from perflab.profile.suggestions import TABLE, for_function, suggest

REPORT = Path(__file__).parent / "programs" / "twitter_report" / "report.py"
TWITTER = Path(perflab.__file__).parent / "builtins" / "data" / "twitter.json"
needs_py_spy = pytest.mark.skipif(find_py_spy() is None, reason="py-spy is not installed")

EXITS = """
import sys, time
def spin():
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass
spin()
print("the program's own output", sys.argv[1:])
sys.exit(3)
"""


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


def test_the_launcher_says_it_is_ready_and_runs_nothing_before_the_go_byte(tmp_path):
    # py-spy is started only after the ready byte: on a process still loading Python it fails.
    ran = tmp_path / "ran"
    script = tmp_path / "app.py"
    script.write_text(f"open({str(ran)!r}, 'w').close()\n")
    go_read, go_write = os.pipe()
    ready_read, ready_write = os.pipe()
    argv = python_command([sys.executable, str(script)]).launcher(
        "--go-fd", str(go_read), "--ready-fd", str(ready_write)
    )
    launcher = subprocess.Popen(argv, pass_fds=(go_read, ready_write))
    os.close(go_read)
    os.close(ready_write)
    try:
        assert select.select([ready_read], [], [], 60)[0], "no ready byte from the launcher"
        assert os.read(ready_read, 1) == b"r"
        time.sleep(0.2)
        assert launcher.poll() is None and not ran.exists()
        os.write(go_write, b"g")
        assert launcher.wait(timeout=60) == 0 and ran.exists()
    finally:
        os.close(go_write)
        os.close(ready_read)
        if launcher.poll() is None:
            launcher.kill()


def test_exit_status_and_output_pass_through_with_the_inprocess_sampler(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(EXITS)
    result = run_perflab(
        "profile",
        "--sampler",
        "inprocess",
        "--json",
        tmp_path / "p.json",
        "--html",
        tmp_path / "p.html",
        "--",
        "python",
        app,
        "a",
    )
    assert result.returncode == 3, result.stderr
    assert "the program's own output ['a']" in result.stdout
    profile = Profile.load(tmp_path / "p.json")
    roots = {parse_frame(stack[0]).name for stack in profile.merged() if stack}
    assert roots == {"<module>"}  # the launcher's frames are gone
    assert any("spin" in label for stack in profile.merged() for label in stack)
    assert profile.metadata["run_info"][0]["exit_status"] == 3
    assert "the program" in (tmp_path / "p.html").read_text() and "the program" in result.stdout  # the root


def test_bad_program_forms_are_refused_in_one_line(tmp_path):
    both = run_perflab("profile", "json_dumps", "--", "python", "x.py")
    assert both.returncode == 2 and "both given" in both.stderr
    assert run_perflab("profile", "--duration", "1", "--", "python", "x.py").returncode == 2
    code = run_perflab("profile", "--", "python", "-c", "pass")
    assert code.returncode == 2 and "python -c is not supported" in code.stderr
    missing = run_perflab("profile", "--pid", "999999999")
    assert missing.returncode == 2
    absent = run_perflab("profile", "--", "python", tmp_path / "absent.py")
    assert absent.returncode == 2 and "absent.py: no such file" in absent.stderr
    app = tmp_path / "app.py"
    app.write_text(EXITS)
    clobber = run_perflab("profile", "--json", app, "--", "python", app)
    assert clobber.returncode == 2 and app.read_text() == EXITS  # an output never overwrites the program
    nothing = run_perflab("profile")
    assert nothing.returncode == 2 and "nothing to profile" in nothing.stderr


@needs_py_spy
def test_pid_profile_of_a_running_process(tmp_path):
    app = tmp_path / "busy.py"
    app.write_text("import time\ndef busy():\n    while True:\n        sum(range(1000))\nbusy()\n")
    process = subprocess.Popen([sys.executable, app])
    try:
        time.sleep(0.5)
        result = run_perflab("profile", "--pid", process.pid, "--duration", "1", "--gil", "--json", tmp_path / "p.json")
    finally:
        process.kill()
        process.wait()
    assert result.returncode == 0, result.stderr
    profile = Profile.load(tmp_path / "p.json")
    assert profile.samples > 0 and any("busy" in label for stack in profile.merged() for label in stack)
    assert profile.metadata["mode"] == "gil" and profile.metadata["pid"] == process.pid


def test_recorder_refuses_what_cannot_be_copied_and_names_it(tmp_path):
    (tmp_path / "lib.py").write_text("def handle(value):\n    return 1\n")
    app = tmp_path / "app.py"
    app.write_text(
        "import threading\nfrom lib import handle\nclass Local:\n    pass\n"
        "for _ in range(5):\n    handle(threading.Lock())\n    handle(Local())\n"
    )
    result = run_perflab(
        "isolate", "--function", "lib:handle", "--output", tmp_path / "b.py", "--", "python", app, cwd=tmp_path
    )
    assert result.returncode == 1
    assert "10 calls seen, none recorded" in result.stderr
    assert "cannot be copied (TypeError" in result.stderr and "__main__" in result.stderr
    assert not (tmp_path / "b.py").exists() and not (tmp_path / "b.inputs.pickle").exists()
    unknown = run_perflab("isolate", "--function", "lib:nope", "--output", tmp_path / "c.py", "--", "python", app)
    assert unknown.returncode == 1 and "lib has no nope" in unknown.stderr


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


@needs_py_spy
def test_from_a_real_program_to_verdicts_with_equivalence(tmp_path):
    """Profile the program, find json and logging among its hottest frames, isolate json.dumps with
    the inputs it saw, add the suggested contenders, and measure them with equivalence."""
    program = ["python", REPORT, TWITTER, 20, tmp_path / "out.txt"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    profiled = run_perflab("profile", "--json", a, "--top", "30", "--", *program, cwd=tmp_path)
    assert profiled.returncode == 0, profiled.stderr
    assert "2000 summaries written" in profiled.stdout  # the program's output passes through
    shares = frame_shares(Profile.load(a).runs)
    hottest = [parse_frame(s.frame).file for s in shares[:30]]
    assert any("/json/" in file for file in hottest) and any("/logging/" in file for file in hottest)
    topics = {hit.suggestion.topic for hit in suggest(shares)}
    assert {"stdlib json decoding", "stdlib logging"} <= topics
    assert "perflab isolate --function json:loads --suggest" in profiled.stdout

    again = run_perflab("profile", "--json", b, "--", *program, cwd=tmp_path)  # a second run, for diff
    assert again.returncode == 0
    diff = run_perflab("diff", a, b, "--html", tmp_path / "diff.html")
    assert diff.returncode == 0, diff.stderr
    assert "per call" in diff.stdout and (tmp_path / "diff.html").stat().st_size > 0

    isolated = run_perflab(
        "isolate", "--function", "json:dumps", "--suggest", "--calls", "3", "--", *program, cwd=tmp_path
    )
    assert isolated.returncode == 0, isolated.stderr
    assert "3 calls of 2000 recorded" in isolated.stderr
    bench = tmp_path / "bench_json_dumps.py"
    assert "orjson_dumps" in bench.read_text() and (tmp_path / "bench_json_dumps.inputs.pickle").is_file()
    refused = run_perflab("isolate", "--function", "json:dumps", "--", *program, cwd=tmp_path)
    assert refused.returncode == 2 and "exists" in refused.stderr  # never overwritten

    measured = run_perflab(
        "run", bench, "--case", "ALL", "--max-time", "5", "--json", tmp_path / "r.json", cwd=tmp_path, timeout=300
    )
    assert measured.returncode in (0, 1), measured.stderr
    statuses = {e["contender"]: e["status"] for e in load_json(tmp_path / "r.json")["equivalence"]}
    assert statuses["original"] == "reference"
    assert statuses["orjson_dumps"] == "equivalent" and statuses["msgspec_dumps"] == "equivalent"


def test_suggestions_match_hot_calls_not_imports():
    from perflab.profile.suggestions import matches

    loads, logging_ = TABLE[1], TABLE[2]
    assert matches(loads, "JSONDecoder.raw_decode (<stdlib>/json/decoder.py:343)")
    assert matches(loads, "loads (<stdlib>/json/__init__.py:299)")
    assert not matches(loads, "dumps (<stdlib>/json/__init__.py:183)")
    assert not matches(loads, "<module> (<stdlib>/json/decoder.py:1)")
    assert matches(logging_, "Logger.info (<stdlib>/logging/__init__.py:1479)")


def other_python(version: str) -> str | None:
    """pyenv's python``version`` if it is installed here (the shims run only the selected version)."""
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(glob.glob(f"{pyenv}/versions/{version}.*/bin/python{version}"))
    return found[-1] if found else None


THIS = f"{sys.version_info.major}.{sys.version_info.minor}"
SCALE = "def scale(values, factor=2, *, offset=0):\n    return [v * factor + offset for v in values]\n"
# The same function with a closure: its code cannot be swapped, so sys.setprofile records it before 3.12.
SCALE_CLOSURE = (
    "def make(base):\n"
    "    def scale(values, factor=2, *, offset=0):\n"
    "        return [v * factor + offset + base for v in values]\n"
    "    return scale\n"
    "scale = make(0)\n"
)
EXPECTED_HOOK = {
    (THIS, SCALE): "sys.monitoring" if sys.version_info >= (3, 12) else "code swap",
    ("3.12", SCALE): "sys.monitoring",
    (THIS, SCALE_CLOSURE): "sys.monitoring" if sys.version_info >= (3, 12) else "sys.setprofile",
}


@pytest.mark.parametrize(("version", "library"), list(EXPECTED_HOOK), ids=["this", "3.12", "closure"])
def test_isolate_records_real_inputs_evenly_with_every_hook(tmp_path, version, library):
    """Each hook (sys.monitoring from 3.12, under another interpreter where perflab is not installed;
    a code swap before 3.12; sys.setprofile for a closure there) records the same calls."""
    python = sys.executable if version == THIS else other_python(version)
    if python is None:
        pytest.skip(f"python{version} is not installed here")
    (tmp_path / "lib.py").write_text(library)
    (tmp_path / "app.py").write_text(
        "from lib import scale\nfor n in range(40):\n    scale(list(range(n)), offset=1 if n % 2 else 0)\nprint('done')\n"
    )
    result = run_perflab(
        "isolate",
        "--function",
        "lib:scale",
        "--calls",
        "5",
        "--output",
        tmp_path / "b.py",
        "--",
        python,
        "app.py",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "done" in result.stdout
    hook = EXPECTED_HOOK[version, library]
    assert f"5 calls of 40 recorded; hook {hook}" in result.stderr
    import pickle

    calls = [pickle.loads(data) for data in pickle.loads((tmp_path / "b.inputs.pickle").read_bytes())]
    sizes = [len(args[0]) for args, _ in calls]
    assert sizes == sorted(sizes) and sizes[0] == 0 and sizes[-1] >= 24  # spread over the whole run
    for args, kwargs in calls:  # the real inputs; arguments left at their defaults are not recorded
        assert args == (list(range(len(args[0]))),)
        assert kwargs == ({"offset": 1} if len(args[0]) % 2 else {})
    assert "Comparator: exact, because it returned list" in (tmp_path / "b.py").read_text()


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or find_py_spy() is None,
    reason="denying ptrace needs root (to drop to another user) and setpriv",
)
def test_ptrace_denied_falls_back_and_the_program_runs_once(tmp_path):
    """A real denial (py-spy as user nobody): the program has not started when py-spy fails, so it
    runs once, under the in-process sampler."""
    denied = tmp_path / "py-spy-as-nobody"
    denied.write_text(
        f'#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "{os.path.realpath(find_py_spy())}" "$@"\n'
    )
    denied.chmod(0o755)
    app = tmp_path / "app.py"
    app.write_text(EXITS)
    result = subprocess.run(
        [sys.executable, "-m", "perflab", "profile", "--json", tmp_path / "p.json", "--", "python", app],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", "PERFLAB_PY_SPY": str(denied)},
    )
    assert result.returncode == 3, result.stderr
    assert result.stdout.count("the program's own output") == 1
    assert "fallback sampler because py-spy cannot attach" in result.stdout
    assert Profile.load(tmp_path / "p.json").metadata["sampler"] == "inprocess"
