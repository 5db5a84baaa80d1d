"""The native built-ins (perflab.builtins.NATIVE), built from the sources perflab ships: the C++
JSON scanner with g++, the Rust crate with cargo (its dependencies from crates.io, once)."""

import shutil
from pathlib import Path

import pytest
from support.cli import QUICK, load_json, run_perflab


@pytest.fixture(scope="module")
def build_cache(tmp_path_factory, monkeypatch_module):
    """One build cache for this module's runs: each program is compiled once."""
    folder = tmp_path_factory.mktemp("native-cache")
    monkeypatch_module.setenv("PERFLAB_CACHE", str(folder))
    return folder


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _statuses(result):
    return {e["contender"]: (e["status"], e["difference"]) for e in result["equivalence"] if e["case"] != "fuzzing"}


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_cpp_json_scan_is_equivalent_across_chunk_splits_and_catches_the_streaming_bug(build_cache, tmp_path):
    out = tmp_path / "r.json"
    contenders = "fast,fast_chunks_4k,simple_chunks_7,fast_chunks_forgetful"
    done = run_perflab("run", "cpp_json_scan", "--contender", contenders, "--json", out, *QUICK)
    assert done.returncode == 1  # the forgetful contender is not equivalent, on purpose
    result = load_json(out)
    statuses = _statuses(result)
    assert statuses["fast"][0] == statuses["fast_chunks_4k"][0] == statuses["simple_chunks_7"][0] == "equivalent"
    assert statuses["fast_chunks_forgetful"] == (
        "not equivalent",
        "stdout: parsed values differ at ['numbers']: reference 2109, contender 2110",
    )
    assert result["work"]["TWITTER"] == ["B", 631515.0]  # MB/s from twitter.json's size
    reference = [run for run in result["cells"][0]["runs"] if not run["calibration"]]
    assert all(len(run["extra"]["inner_seconds"]) == len(run["values"]) for run in reference)
    assert "inner vs simple" in done.stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_without_a_compiler_the_native_contenders_are_skipped_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no g++ on it
    out = tmp_path / "r.json"
    run_perflab("run", "cpp_json_scan", "--json", out, *QUICK)
    simple = _statuses(load_json(out))["simple"]
    assert simple[0] == "skipped"
    assert "a C++ compiler (g++) is not installed: this contender is built from source" in simple[1]


def test_rust_substring_and_uuids_build_once_and_agree(build_cache, tmp_path):
    if shutil.which("cargo") is None and not (Path.home() / ".cargo" / "bin" / "cargo").exists():
        pytest.skip("cargo is not installed")
    out = tmp_path / "search.json"
    done = run_perflab("run", "rust_substring", "--json", out, *QUICK, timeout=900)
    assert done.returncode == 0, done.stderr
    assert _statuses(load_json(out))["naive"][0] == "equivalent"
    out = tmp_path / "uuids.json"
    done = run_perflab("run", "rust_uuids", "--json", out, *QUICK)
    assert done.returncode == 0, done.stderr
    assert _statuses(load_json(out))["thread_local"][0] == "equivalent"
    assert len(list(build_cache.glob("native/*/rust_lab"))) == 1  # one build served both benchmarks
