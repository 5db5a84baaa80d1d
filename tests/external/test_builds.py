"""Compiled projects across revisions, built for real (a C compiler; setuptools, Cython and
maturin from PyPI; PyO3 from crates.io): each revision built into its own cached environment, then
measured paired and interleaved. A build is a new venv, its build requirements and a compile, by
uv (the ``cache`` fixture puts it on PATH): seconds for C, more for Cython and a minute or more for
PyO3's first compile on a loaded machine, so one test per project type."""

import math
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support.cli import QUICK, VERDICT, load_json, run_perflab
from support.compiled_projects import c_extension_repository, cython_repository, rust_repository, uv_on_path
from support.external import skip_anywhere
from support.pytest_runs import run_pytest

from perflab.measure.builds import UV_COMMAND
from perflab.pytest_plugin.report import load_runs

# A build of the smallest C extension takes seconds (~20 s by pip), minutes when the machine is
# loaded by several builds at once; Rust's first build of PyO3 minutes more.
BUILDS_TIMEOUT = 1200


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty build cache, and uv on PATH: the builds are uv's (tests/unit/test_builds.py has pip's)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("PERFLAB_CACHE", str(folder))
    monkeypatch.setenv("PATH", uv_on_path())
    return folder


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_c_extension_revision_that_loops_three_times_is_slower(tmp_path, cache):
    """Two builds (a venv, setuptools from PyPI and a compile each: ~20 s, a minute or more when
    the machine is loaded) and one QUICK comparison. (That a build is found in the cache and never
    made twice is shown by the bisect test, which measures good and bad four times.)"""
    repo = c_extension_repository(tmp_path / "repo")
    data = _slower_revision(repo, tmp_path / "r.json", "--no-store")
    assert [c["verdict"] for c in data["comparisons"]] == ["slower"]
    built = data["metadata"]["builds"]
    assert set(built) == {"HEAD~1", "HEAD"} and not any(side["cached"] for side in built.values())
    assert len({side["environment"] for side in built.values()}) == 2


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_an_untracked_benchmark_runs_on_each_revisions_build(tmp_path, cache):
    """asv's model for a compiled project: the working tree's benchmark (untracked, at the
    repository's root) on each revision's build; the working tree's own copy of the module beside
    it (here a decoy cspin.py) is never imported instead of the build. Two builds, one comparison."""
    repo = c_extension_repository(tmp_path / "repo")
    bench = repo / "bench.py"
    bench.write_text((repo / "benchmarks" / "bench.py").read_text())
    (repo / "cspin.py").write_text("raise ImportError('the working tree cspin.py was imported, not the build')\n")
    out = tmp_path / "r.json"
    result = run_perflab(
        "compare", bench, "--rev", "HEAD~1", "--rev", "HEAD", *VERDICT, "--json", out, "--no-store",
        cwd=repo, timeout=BUILDS_TIMEOUT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = load_json(out)
    assert [c["verdict"] for c in data["comparisons"]] == ["slower"]
    assert set(data["metadata"]["builds"]) == {"HEAD~1", "HEAD"}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_revision_that_does_not_compile_is_one_line_with_its_log(tmp_path, cache):
    """One build, which fails at the compiler (a venv and setuptools first: ~15 s)."""
    repo = c_extension_repository(tmp_path / "repo", rounds=(1, 0))
    bench = repo / "benchmarks" / "bench.py"
    result = run_perflab("compare", bench, "--rev", "HEAD", "--rev", "HEAD~1", *QUICK, timeout=BUILDS_TIMEOUT)
    assert result.returncode == 2
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("perflab: error: revision 'HEAD' does not build")
    assert "cspin.c" in error and "error:" in error  # the compiler's own line, not pip's summary
    log = error.rsplit("whole log: ", 1)[1].rstrip(")")
    assert "cspin.c" in Path(log).read_text()


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_pytest_file_runs_on_each_revisions_build_with_perflab_rev(tmp_path, cache):
    """``pytest --perflab-rev``: the working tree's test file (untracked, at the root, where a decoy
    cspin.py would shadow the build if imported) on each revision's build. Two builds, one session."""
    repo = c_extension_repository(tmp_path / "repo")
    (repo / "cspin.py").write_text("raise ImportError('the working tree cspin.py was imported, not the build')\n")
    (repo / "test_spin.py").write_text(
        "import time\nimport pytest\n\n\n@pytest.mark.benchmark(timer=time.process_time)\n"
        "def test_spin(benchmark):\n    import cspin\n\n    benchmark(cspin.spin, 100_000)\n"
    )
    out = tmp_path / "session.json"
    done = run_pytest(
        repo, "--perflab", "--benchmark-max-time", "0.2", "--perflab-precision", "5", "--perflab-rev", "HEAD~1",
        "--perflab-rev", "HEAD", "--perflab-json", out, timeout=BUILDS_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "building" in done.stderr  # each revision built into its cached environment, said
    [run] = load_runs(out)
    assert [(c.contender, c.reference, c.verdict) for c in run.comparisons] == [("HEAD", "HEAD~1", "slower")]


def _slower_revision(repo: Path, out: Path, *options: str, env: dict | None = None) -> dict:
    """``compare --rev HEAD~1 --rev HEAD`` of a project whose HEAD loops three times; its result."""
    revisions = ["--rev", "HEAD~1", "--rev", "HEAD"]
    bench = repo / "benchmarks" / "bench.py"
    result = run_perflab(
        "compare", bench, *revisions, *options, *VERDICT, "--json", out, timeout=BUILDS_TIMEOUT, env=env
    )
    assert result.returncode == 0, result.stderr
    return load_json(out)


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_cython_revision_is_built_with_cython_from_pypi(tmp_path, cache):
    """Two Cython builds by the default command (uv's: it is on PATH): Cython's C is large, so it
    is compiled at -O0 (CFLAGS, which the build inherits) to keep the test near a minute on a
    loaded machine."""
    pytest.importorskip("Cython", reason="needs Cython (pip install 'perflab[test]')")
    repo = cython_repository(tmp_path / "repo")
    data = _slower_revision(repo, tmp_path / "r.json", "--no-store", env={"CFLAGS": "-O0"})
    assert [(c["verdict"], c["valid"]) for c in data["comparisons"]] == [("slower", True)]
    assert {side["command"] for side in data["metadata"]["builds"].values()} == {UV_COMMAND}


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs Rust (cargo)")
def test_a_pyo3_revision_is_built_by_maturin(tmp_path, cache):
    """The first build downloads and compiles PyO3 (unoptimised, as the project's release profile
    says: a minute or more on a loaded machine); the second revision reuses it from the cache's
    shared cargo target folder."""
    try:
        urllib.request.urlopen("https://index.crates.io/config.json", timeout=10)
    except OSError:
        skip_anywhere("crates.io is not reachable, and PyO3 comes from there")
    repo = rust_repository(tmp_path / "repo")
    data = _slower_revision(repo, tmp_path / "r.json", "--no-store")
    assert [(c["verdict"], c["valid"]) for c in data["comparisons"]] == [("slower", True)]
    assert set(data["metadata"]["builds"]) == {"HEAD~1", "HEAD"}


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_bisect_skips_a_commit_that_does_not_build_and_builds_log2_n_plus_2(tmp_path, cache):
    """Eight commits: the fourth does not compile, the sixth is three times slower. Five builds
    (good, bad, the broken middle, its neighbour, the next middle) of ~20 s each on a loaded
    machine, and four QUICK measurements: a few minutes, the price of bisecting built revisions."""
    repo = c_extension_repository(tmp_path / "repo", rounds=(1, 1, 1, 0, 1, 3, 3, 3))
    out = tmp_path / "bisect.json"
    bench = repo / "benchmarks" / "bench.py"
    bisect = ["bisect", bench, "--good", "HEAD~7", "--bad", "HEAD", *VERDICT, "--json", out]
    result = run_perflab(*bisect, cwd=repo, timeout=BUILDS_TIMEOUT)
    assert result.returncode == 0, result.stderr
    outcome = load_json(out)
    log = subprocess.run(["git", "-C", repo, "rev-list", "--reverse", "HEAD"], capture_output=True, text=True)
    commits = log.stdout.split()
    assert outcome["first_bad"] == commits[5]
    assert outcome["skipped"] == [commits[3]] and outcome["undecided"] == []
    builds_made = list((cache / "builds").glob("*/build.log"))  # complete or failed: every build tried
    assert len(builds_made) <= math.log2(len(commits)) + 2


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_check_says_the_build_spread_and_keeps_its_a_a_with_the_builds(tmp_path, cache):
    """The same C at both commits: three builds (the base twice, the working tree; ~20 s each, a
    minute or more when the machine is loaded), the A/A and the check (QUICK), then the check
    again, which finds the A/A with the builds and builds nothing."""
    repo = c_extension_repository(tmp_path / "repo", rounds=(1, 1))
    out = tmp_path / "check.json"
    bench = repo / "benchmarks" / "bench.py"
    check = ["check", bench, "--against", "HEAD~1", "--build-spread", *VERDICT]
    result = run_perflab(*check, "--json", out, "--no-store", cwd=repo, timeout=BUILDS_TIMEOUT)
    assert result.returncode == 0, result.stderr
    outcome = load_json(out)
    spread = outcome["build_spread"]
    assert spread["revision"] == "HEAD~1" and spread["case"] == "K" and not spread["cached"]
    assert math.isfinite(spread["spread"]) and spread["spread"] > 0
    # A difference inside the threshold and the spread is not a regression; the summary says both.
    assert outcome["passed"] and [cell["verdict"] for cell in outcome["cells"]] != ["REGRESSION"]
    widened = f"{(1 + outcome['threshold']) * (1 + spread['spread']):.4g}x"
    assert f"no regression (more than {widened} slower)" in result.stdout
    assert "build-to-build spread ±" in result.stdout and "a regression must exceed both" in result.stdout
    assert len(list((cache / "builds").glob("*/perflab-build.json"))) == 3
    again = run_perflab(*check, "--json", out, "--no-store", cwd=repo, timeout=BUILDS_TIMEOUT)
    assert again.returncode == 0, again.stderr
    assert load_json(out)["build_spread"]["cached"] and "measuring its two builds" not in again.stderr
    assert len(list((cache / "builds").glob("*/perflab-build.json"))) == 3


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_qualify_builds_a_compiled_working_tree_as_check_does(tmp_path, cache):
    """One build (~20 s, a minute or more when the machine is loaded) and a QUICK A/A: qualify
    imported the benchmark with perflab's own interpreter and stopped at "No module named 'cspin'"."""
    repo = c_extension_repository(tmp_path / "repo", rounds=(1, 1))
    result = run_perflab(
        "qualify", repo / "benchmarks" / "bench.py", *QUICK, "--no-store", cwd=repo, timeout=BUILDS_TIMEOUT
    )
    assert result.returncode == 0, result.stderr
    assert "WORKTREE: building" in result.stderr and "what this runner can detect" in result.stdout


PYTEST_SPIN = """
import time

import pytest
import cspin


@pytest.mark.benchmark(timer=time.process_time)  # CPU time: the gate sees the code, not the load
def test_spin(benchmark):
    benchmark(cspin.spin, 20000)
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_pytest_gate_against_a_revision_refuses_a_stale_build_and_fails_a_slower_one(tmp_path):
    """The developer's flow: build in place, run the suite with --perflab (stored at its commit),
    change the C, then gate against HEAD~1. Three in-place compiles (~2 s each, no venv) and five
    short pytest sessions, one per state the gate must tell apart: 50-100 s at load average 8-11."""
    pytest.importorskip("setuptools", reason="needs setuptools to build in place")
    repo = c_extension_repository(tmp_path / "repo", rounds=(1,))
    (repo / "test_spin.py").write_text(PYTEST_SPIN)
    git = lambda *args: subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    git("add", "-A")
    git("commit", "-qm", "test")
    build = lambda *force: subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace", *force], cwd=repo, check=True, capture_output=True
    )
    # A 90% threshold: the slower revision loops 10 times (3 times measured 1.97x [1.46x, 2.68x] in
    # CI, its interval across the threshold); an unchanged rebuild measured in another session of a
    # loaded machine must not fail.
    gate = ["--perflab", "--benchmark-max-time", "0.3", "--perflab-precision", "1", "--perflab-threshold", "90"]
    build()
    run_pytest(repo, *gate, check=True)  # the baseline, stored at HEAD
    (repo / "cspin.c").touch()
    build("--force")
    unchanged = run_pytest(repo, *gate, "--perflab-against", "HEAD")
    assert unchanged.returncode == 0, unchanged.stdout[-2000:]
    (repo / "cspin.c").write_text((repo / "cspin.c").read_text().replace("ROUNDS 1", "ROUNDS 10"))
    git("commit", "-qam", "10 rounds")
    stale = run_pytest(repo, *gate, "--perflab-against", "HEAD~1")  # the 1-round build, still in place
    assert stale.returncode == 4, stale.stdout[-2000:]
    assert "was built before cspin.c last changed" in stale.stdout and "--build`" in stale.stdout
    build()
    only_stale = run_pytest(repo, *gate, "--perflab-against", "HEAD")  # HEAD's one stored run is the stale one
    assert only_stale.returncode == 4, only_stale.stdout[-2000:]
    assert "the runs there measured a stale build, which is no baseline" in only_stale.stdout
    slower = run_pytest(repo, *gate, "--perflab-against", "HEAD~1")
    assert slower.returncode == 1, slower.stdout[-2000:]
    assert "REGRESSION" in slower.stdout
