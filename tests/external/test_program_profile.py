"""Whole programs: `perflab profile -- python app.py`, `--pid`, `perflab isolate`, suggestions, and
the loop from a real program (tests/programs/twitter_report) to verdicts with equivalence."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import load_json, run_perflab
from support.external import other_python
from support.paths import TESTS
from support.program_profile_shared import EXITS

import perflab
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.sampler import find_py_spy
from perflab.profile.shares import frame_shares
from perflab.profile.suggestions import suggest

REPORT = TESTS / "programs" / "twitter_report" / "report.py"

TWITTER = Path(perflab.__file__).parent / "builtins" / "data" / "twitter.json"

needs_py_spy = pytest.mark.skipif(find_py_spy() is None, reason="py-spy is not installed")


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
