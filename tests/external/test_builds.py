"""Compiled projects across revisions, built for real (a C compiler; setuptools, Cython and
maturin from PyPI; PyO3 from crates.io): each revision built into its own cached environment, then
measured paired and interleaved. A build is a new venv, its build requirements and a compile:
10-30 s for C, minutes for Cython and Rust on a loaded machine, so one test per project type."""

import shutil
import urllib.request
from pathlib import Path

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.compiled_projects import c_extension_repository, cython_repository, rust_repository
from support.external import skip_anywhere


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("PERFLAB_CACHE", str(folder))
    return folder


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_c_extension_revision_that_loops_three_times_is_slower(tmp_path, cache):
    """Two builds (a venv, setuptools and a compile each: ~10-25 s under load), then one QUICK
    comparison, then the same comparison again from the cache."""
    repo = c_extension_repository(tmp_path / "repo")
    out = tmp_path / "r.json"
    args = ["compare", repo / "benchmarks" / "bench.py", "--rev", "HEAD~1", "--rev", "HEAD", *QUICK]
    result = run_perflab(*args, "--debug-min-rounds", "5", "--json", out, "--no-store")
    assert result.returncode == 0, result.stderr
    data = load_json(out)
    assert [c["verdict"] for c in data["comparisons"]] == ["slower"]
    built = data["metadata"]["builds"]
    assert set(built) == {"HEAD~1", "HEAD"} and not any(side["cached"] for side in built.values())
    assert len({side["environment"] for side in built.values()}) == 2

    again = run_perflab(*args, "--json", out, "--no-store")  # measured again: nothing rebuilt
    assert again.returncode == 0, again.stderr
    assert all(side["cached"] for side in load_json(out)["metadata"]["builds"].values())
    assert "building" not in again.stderr


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_revision_that_does_not_compile_is_one_line_with_its_log(tmp_path, cache):
    repo = c_extension_repository(tmp_path / "repo", rounds=(1,))
    source = repo / "cspin.c"
    source.write_text(source.read_text().replace("total += i % 7;", "total += i % 7"))  # uncommitted
    result = run_perflab("compare", repo / "benchmarks" / "bench.py", "--rev", "WORKTREE", "--rev", "HEAD", *QUICK)
    assert result.returncode == 2
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("perflab: error: revision 'WORKTREE' does not build")
    assert "cspin.c" in error and "error:" in error  # the compiler's own line, not pip's summary
    log = error.rsplit("whole log: ", 1)[1].rstrip(")")
    assert "cspin.c" in Path(log).read_text()


def _slower_revision(repo: Path, out: Path, *options: str) -> dict:
    """``compare --rev HEAD~1 --rev HEAD`` of a project whose HEAD loops three times; its result."""
    bench = repo / "benchmarks" / "bench.py"
    result = run_perflab(
        "compare", bench, "--rev", "HEAD~1", "--rev", "HEAD", *options, *QUICK, "--debug-min-rounds", "5", "--json", out
    )
    assert result.returncode == 0, result.stderr
    return load_json(out)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_cython_revision_is_built_with_cython_from_pypi(tmp_path, cache):
    """Two Cython builds: Cython's C is large, so it is compiled at -O0 (through --build-command)
    to keep the test near a minute on a loaded machine."""
    pytest.importorskip("Cython", reason="needs Cython (pip install 'perflab[test]')")
    repo = cython_repository(tmp_path / "repo")
    command = "CFLAGS=-O0 python -m pip install --no-build-isolation ."
    data = _slower_revision(repo, tmp_path / "r.json", "--build-command", command, "--no-store")
    assert [(c["verdict"], c["valid"]) for c in data["comparisons"]] == [("slower", True)]
    assert {side["command"] for side in data["metadata"]["builds"].values()} == {command}


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs Rust (cargo)")
def test_a_pyo3_revision_is_built_by_maturin(tmp_path, cache):
    """The first build downloads and compiles PyO3 (minutes on a loaded machine); the second
    revision reuses it from the cache's shared cargo target folder."""
    try:
        urllib.request.urlopen("https://index.crates.io/config.json", timeout=10)
    except OSError:
        skip_anywhere("crates.io is not reachable, and PyO3 comes from there")
    repo = rust_repository(tmp_path / "repo")
    data = _slower_revision(repo, tmp_path / "r.json", "--no-store")
    assert [(c["verdict"], c["valid"]) for c in data["comparisons"]] == [("slower", True)]
    assert set(data["metadata"]["builds"]) == {"HEAD~1", "HEAD"}
