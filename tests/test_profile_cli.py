"""`perflab profile`, `perflab merge` and `run --profile` end to end: real workers, real py-spy."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from perflab.profile.sampler import find_py_spy

BENCH = '''
    import os, time
    import perflab

    bench = perflab.Benchmark("split", description="two functions in a known proportion")

    @bench.case(items=1)
    def SMALL():
        return 3000

    @bench.case(items=1)
    def LARGE():
        return 30000

    def heavy(n):
        return sum(i * i for i in range(n))

    def light(n):
        return sum(range(n // 3))

    @bench.contender
    def work(n):
        return heavy(n) + light(n)

    _started = []

    @bench.contender
    def crashes(n):
        """Works for a while, then the process dies (after set-up and calibration)."""
        _started.append(time.perf_counter()) if not _started else None
        if time.perf_counter() - _started[0] > 0.8:
            os.abort()
        return heavy(n) + light(n)
'''
QUICK = ["--samples", "200", "--rate", "200", "--runs", "2", "--timeout", "30"]


def perflab(*args, env=None, cwd=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "perflab", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


@pytest.fixture
def bench(tmp_path):
    path = tmp_path / "bench.py"
    path.write_text(textwrap.dedent(BENCH))
    return path


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
    result = perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *QUICK,
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
    result = perflab("profile", "json_dumps", "--case", "NESTED", "--native", *QUICK, "--folded", tmp_path / "f")
    assert result.returncode == 0, result.stderr
    assert "Python + native frames" in result.stdout
    assert "encoder_call (_json.c)" in (tmp_path / "f").read_text()
    assert "encoder_call" in result.stdout


def test_fallback_sampler_when_py_spy_cannot_be_run(bench, tmp_path):
    result = perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *QUICK,
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
    result = perflab(
        "profile", bench, "--case", "SMALL", *QUICK, "--json", tmp_path / "p.json", env={"PERFLAB_PY_SPY": str(denied)}
    )
    assert result.returncode == 0, result.stderr
    assert "fallback sampler because py-spy cannot attach to the worker: ptrace permission denied" in result.stdout
    assert "heavy" in result.stdout and "light" in result.stdout
    meta = json.loads((tmp_path / "p.json").read_text())["metadata"]
    assert meta["sampler"] == "inprocess" and meta["native"] is False
    # Asked for py-spy explicitly: no silent fallback, a one-line error instead.
    strict = perflab(
        "profile", bench, "--case", "SMALL", *QUICK, "--sampler", "py-spy", env={"PERFLAB_PY_SPY": str(denied)}
    )
    assert strict.returncode == 1
    assert strict.stderr.strip().splitlines()[-1].startswith("perflab: error: py-spy cannot attach")


@needs_py_spy
def test_a_target_crashing_mid_profile_keeps_the_partial_profile(bench, tmp_path):
    result = perflab(
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
    assert "SIGABRT" in last and "runs sampled until then are kept" in last
    assert "heavy" in result.stdout
    assert json.loads((tmp_path / "p.json").read_text())["runs"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--case", "NOPE"], "unknown case 'NOPE'"),
        ([], "2 cases (SMALL, LARGE): choose one with --case"),
        (["--case", "SMALL", "--contender", "nope"], "unknown contender 'nope'"),
        (["--case", "SMALL", "--html", "/no/such/dir/x.html"], "--html /no/such/dir/x.html: directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(bench, args, message):
    result = perflab("profile", bench, *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


def test_malformed_what_if_is_refused_before_profiling(bench):
    result = perflab("profile", bench, "--case", "SMALL", "--what-if", "heavy")
    assert result.returncode == 2 and "expected FRAME=Kx" in result.stderr


def test_what_if_predicts_and_an_unknown_frame_is_an_error_after_writing(bench, tmp_path):
    result = perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *QUICK,
        "--sampler",
        "inprocess",
        "--what-if",
        "heavy=2x",
        "--json",
        tmp_path / "p.json",
    )
    assert result.returncode == 0, result.stderr
    assert "what if heavy" in result.stdout and "faster [95% CI" in result.stdout
    merged = perflab("merge", tmp_path / "p.json", "--what-if", "hevy=2x")
    assert merged.returncode == 2
    assert "no frame of the profile matches (did you mean heavy" in merged.stderr.strip().splitlines()[-1]


def test_merge_adds_runs_and_refuses_broken_files(bench, tmp_path):
    for name in ("a", "b"):
        result = perflab(
            "profile",
            bench,
            "--case",
            "SMALL",
            *QUICK,
            "--sampler",
            "inprocess",
            "--json",
            tmp_path / f"{name}.json",
            "--folded",
            tmp_path / f"{name}.folded",
        )
        assert result.returncode == 0, result.stderr
    merged = perflab(
        "merge", tmp_path / "a.json", tmp_path / "b.json", tmp_path / "a.folded", "--json", tmp_path / "m.json"
    )
    assert merged.returncode == 0, merged.stderr
    runs = lambda name: len(json.loads((tmp_path / name).read_text())["runs"])
    assert runs("m.json") == runs("a.json") + runs("b.json") + 1
    broken = tmp_path / "broken.folded"
    broken.write_text((tmp_path / "a.folded").read_text()[:-3])
    result = perflab("merge", tmp_path / "a.json", broken)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "broken.folded:" in result.stderr


def test_run_with_profile_profiles_after_timing_in_separate_workers(bench, tmp_path):
    result = perflab(
        "run",
        bench,
        "--case",
        "SMALL",
        "--contender",
        "work",
        "--max-time",
        "2",
        "--precision",
        "50",
        "--profile-dir",
        tmp_path / "profiles",
        "--profile-samples",
        "200",
        "--no-store",
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "hottest path" in result.stdout
    assert (tmp_path / "profiles" / "SMALL-work.profile.json").exists()
    assert "<canvas" in (tmp_path / "profiles" / "SMALL-work.html").read_text()


EVIL_BENCH = """
    import perflab

    bench = perflab.Benchmark("evil")

    def work(n):
        return sum(i * i for i in range(n))

    # A function may be given any name: markup, a folded-stack separator, a line break.
    EVIL_NAME = "[bold]</script><script>window.pwned=1</script>;x\\ny"
    work = type(work)(work.__code__.replace(co_name=EVIL_NAME, co_qualname=EVIL_NAME), globals())

    @bench.case
    def ONE():
        return 3000

    @bench.contender
    def run(n):
        return work(n)
"""


def test_names_from_user_code_are_escaped_in_every_output(tmp_path):
    path = tmp_path / "evil.py"
    path.write_text(textwrap.dedent(EVIL_BENCH))
    result = perflab(
        "profile",
        path,
        *QUICK,
        "--sampler",
        "inprocess",
        "--html",
        tmp_path / "p.html",
        "--folded",
        tmp_path / "p.folded",
        "--speedscope",
        tmp_path / "p.json",
    )
    assert result.returncode == 0, result.stderr
    assert "[bold]</script><script>window.pwned=1</script>" in result.stdout  # shown literally, not as markup
    page = (tmp_path / "p.html").read_text()
    assert "<script>window.pwned" not in page and page.count("</script>") == 2
    folded = (tmp_path / "p.folded").read_text().splitlines()
    assert all(line.rpartition(" ")[2].isdigit() for line in folded)
    assert any("</script>:x y (<project>/evil.py:" in line for line in folded)
    names = [frame["name"] for frame in json.loads((tmp_path / "p.json").read_text())["shared"]["frames"]]
    assert "[bold]</script><script>window.pwned=1</script>;x\ny" in names
