"""`perflab profile`, `perflab merge` and `run --profile` end to end: real workers, real py-spy."""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from support.cli import run_perflab
from support.external import other_python
from support.profile_cli_shared import BENCH, PROFILE_QUICK, bench, check_line_profile  # noqa: F401 - fixtures are found by name

from perflab.profile.sampler import find_py_spy


def _py_spy_can_attach() -> bool:
    """Whether py-spy may read another process here (ptrace allowed): dump a sleeping child."""
    if find_py_spy() is None:
        return False
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.3)
        return (
            subprocess.run([find_py_spy(), "dump", "--pid", str(child.pid)], capture_output=True, timeout=30).returncode
            == 0
        )
    finally:
        child.kill()
        child.wait()


needs_py_spy = pytest.mark.skipif(
    not _py_spy_can_attach(), reason="py-spy is not installed or may not ptrace here (the fallback tests still run)"
)


@needs_py_spy
def test_profile_shows_the_operation_only_with_shares_and_exports(bench, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = run_perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *PROFILE_QUICK,
        "--json",
        out / "p.json",
        "--folded",
        out / "p.folded",
        "--speedscope",
        out / "p.speedscope.json",
    )
    assert result.returncode == 0, result.stderr
    for expected in ("sampler py-spy", "--nonblocking, cpu time, 200 Hz", "heavy", "light", "hottest path", "[95% CI]"):
        assert expected in result.stdout
    folded = (out / "p.folded").read_text()
    assert "heavy (<project>/bench.py:" in folded and "bench/worker/" not in folded and "calibrate" not in folded
    profile = json.loads((out / "p.json").read_text())
    meta = profile["metadata"]
    assert profile["schema"] == "perflab.profile/1" and len(profile["runs"]) >= 2
    assert (meta["sampler"], meta["mode"], meta["rate"], meta["native"], meta["nonblocking"]) == (
        "py-spy",
        "cpu",
        200,
        False,
        True,
    )
    assert meta["python"]["version"] and meta["python"]["build"] and meta["samples"] >= 200
    speedscope = json.loads((out / "p.speedscope.json").read_text())
    frames = speedscope["shared"]["frames"]
    sampled = speedscope["profiles"][0]
    assert sampled["type"] == "sampled" and len(sampled["samples"]) == len(sampled["weights"])
    assert all(0 <= i < len(frames) for stack in sampled["samples"] for i in stack)
    assert any(f["name"] == "heavy" and f["file"] == "<project>/bench.py" and f["line"] for f in frames)


@needs_py_spy
def test_native_frames_show_c_functions_under_the_operation(tmp_path):
    result = run_perflab(
        "profile", "json_dumps", "--case", "NESTED", "--native", *PROFILE_QUICK, "--folded", tmp_path / "f"
    )
    assert result.returncode == 0, result.stderr
    assert "Python + native frames" in result.stdout
    assert "encoder_call (_json.c)" in (tmp_path / "f").read_text()
    assert "encoder_call" in result.stdout


@needs_py_spy
def test_python_profiles_the_operation_under_another_interpreter(tmp_path):
    other = other_python("3.12") or other_python("3.13")
    if other is None:
        pytest.skip("no CPython 3.12 or 3.13 from pyenv here (pyenv install 3.12)")
    out = tmp_path / "p.json"
    result = run_perflab("profile", "json_dumps", "--case", "NESTED", "--python", other, *PROFILE_QUICK, "--json", out)
    assert result.returncode == 0, result.stderr
    profile = json.loads(out.read_text())
    version = profile["metadata"]["python"]["version"]
    assert other.endswith(f"python{'.'.join(version.split('.')[:2])}")  # the interpreter asked for, not perflab's
    assert f"Python {version}" in result.stdout
    # its standard library is <stdlib>, as perflab's own would be
    assert any(label.startswith("dumps (<stdlib>/json/__init__.py:") for label in profile["frames"])


@needs_py_spy
def test_lines_profiles_shares_per_source_line_with_py_spy(bench):
    check_line_profile(bench, "--sampler", "py-spy")


def test_fallback_sampler_when_py_spy_cannot_be_run(bench, tmp_path):
    result = run_perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *PROFILE_QUICK,
        "--json",
        tmp_path / "p.json",
        env={"PERFLAB_PY_SPY": str(tmp_path / "no-such-py-spy")},
    )
    assert result.returncode == 0, result.stderr
    assert "fallback sampler because cannot run py-spy" in result.stdout
    assert "heavy" in result.stdout
    meta = json.loads((tmp_path / "p.json").read_text())["metadata"]
    assert meta["sampler"] == "inprocess" and "no-such-py-spy" in meta["sampler_reason"]


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or find_py_spy() is None,
    reason="denying ptrace needs root (to drop to another user) and setpriv",
)
def test_fallback_sampler_when_ptrace_is_denied(bench, tmp_path):
    """A real denial: py-spy runs as user nobody, so the kernel refuses to let it ptrace our worker."""
    denied = tmp_path / "py-spy-as-nobody"
    denied.write_text(
        f'#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "{os.path.realpath(find_py_spy())}" "$@"\n'
    )
    denied.chmod(0o755)
    result = run_perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *PROFILE_QUICK,
        "--json",
        tmp_path / "p.json",
        env={"PERFLAB_PY_SPY": str(denied)},
    )
    assert result.returncode == 0, result.stderr
    assert "fallback sampler because py-spy cannot attach to the worker: ptrace permission denied" in result.stdout
    assert "heavy" in result.stdout and "light" in result.stdout
    meta = json.loads((tmp_path / "p.json").read_text())["metadata"]
    assert meta["sampler"] == "inprocess" and meta["native"] is False
    # Asked for py-spy explicitly: no silent fallback, a one-line error instead.
    strict = run_perflab(
        "profile", bench, "--case", "SMALL", *PROFILE_QUICK, "--sampler", "py-spy", env={"PERFLAB_PY_SPY": str(denied)}
    )
    assert strict.returncode == 1
    assert strict.stderr.strip().splitlines()[-1].startswith("perflab: error: py-spy cannot attach")


@needs_py_spy
def test_a_target_crashing_mid_profile_keeps_the_partial_profile(bench, tmp_path):
    result = run_perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        "--contender",
        "crashes",
        "--samples",
        "600",
        "--rate",
        "200",
        "--runs",
        "2",
        "--json",
        tmp_path / "p.json",
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "SIGABRT" in last and "sampled until then kept, marked partial" in last
    assert "heavy" in result.stdout
    written = json.loads((tmp_path / "p.json").read_text())
    assert written["runs"] and "SIGABRT" in written["metadata"]["partial"]
