"""Compiled projects across revisions, built for real (a C compiler, and setuptools from PyPI):
each revision built into its own cached environment, then measured paired and interleaved."""

import shutil
from pathlib import Path

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.compiled_projects import c_extension_repository


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
