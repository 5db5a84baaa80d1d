"""``perflab import`` of native benchmark harnesses: Google Benchmark JSON made here by a real
program (tests/native/gbench_find.cpp, linked against Debian's libbenchmark-dev) and real
criterion.rs output captured from tests/native/criterion_find (tests/data/criterion/README.md)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import run_perflab
from support.native_programs import SOURCES

from perflab.results.files import load_file
from perflab.results.store import Store


@pytest.fixture(scope="module")
def gbench_json(tmp_path_factory):
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ is not installed: the Google Benchmark test needs a C++ compiler")
    directory = tmp_path_factory.mktemp("gbench")
    if not Path("/usr/include/benchmark/benchmark.h").exists():
        pytest.skip("Google Benchmark is not installed (Debian: apt-get install libbenchmark-dev; .ci/run does)")
    binary = directory / "gbench_find"
    subprocess.run([compiler, "-O2", "-o", binary, SOURCES / "gbench_find.cpp", "-lbenchmark", "-lpthread"], check=True)
    out = directory / "find.json"
    subprocess.run(
        [
            binary,
            "--benchmark_format=json",
            "--benchmark_repetitions=3",
            "--benchmark_min_time=0.005",
            f"--benchmark_out={out}",
        ],
        check=True,
        capture_output=True,
    )
    return out


def test_google_benchmark_repetitions_become_runs_with_intervals_and_throughput(gbench_json, tmp_path):
    result = load_file(gbench_json, "find")
    assert [(c.case, c.contender) for c in result.cells] == [
        ("1024", "BM_memchr"),
        ("16384", "BM_memchr"),
        ("1024", "BM_find"),
        ("16384", "BM_find"),
    ]
    raw = [entry for entry in json.loads(gbench_json.read_text())["benchmarks"] if entry["name"] == "BM_memchr/1024"]
    cell = result.cells[0]
    assert len(cell.runs) == 3 and [len(run.values) for run in cell.runs] == [1, 1, 1]
    assert cell.runs[0].values[0] == pytest.approx(raw[0]["real_time"] * 1e-9)
    estimates = cell.estimates
    assert estimates is not None and estimates.median.low <= estimates.median.value <= estimates.median.high
    assert result.work["1024"][0] == "B" and result.work["1024"][1] == pytest.approx(1024, rel=1e-6)
    db = tmp_path / "store.db"
    done = run_perflab("import", gbench_json, "--benchmark", "find", "--db", db)
    assert done.returncode == 0, done.stderr
    with Store.open(db) as store:
        assert store.benchmarks() == ["find"]
    history = run_perflab("history", "find", "--db", db)
    assert history.returncode == 0 and "find / 1024 / BM_memchr — 1 run(s)" in history.stdout
