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
from support.paths import TESTS

from perflab.results.files import ResultsFileError, load_file
from perflab.results.store import Store

CRITERION = TESTS / "data" / "criterion"


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


def test_criterion_samples_and_its_own_intervals_are_imported(tmp_path):
    result = load_file(CRITERION)
    assert result.benchmark == "find_byte"
    assert sorted((c.case, c.contender) for c in result.cells) == [
        ("1024", "naive"),
        ("1024", "rposition"),
        ("16384", "naive"),
        ("16384", "rposition"),
    ]
    cell = next(c for c in result.cells if (c.case, c.contender) == ("1024", "naive"))
    sample = json.loads((CRITERION / "find_byte/naive/1024/new/sample.json").read_text())
    assert cell.runs[0].values == pytest.approx([t * 1e-9 / i for t, i in zip(sample["times"], sample["iters"])])
    estimates = json.loads((CRITERION / "find_byte/naive/1024/new/estimates.json").read_text())["median"]
    assert cell.estimates.median.value == pytest.approx(estimates["point_estimate"] * 1e-9)
    assert cell.estimates.median.low == pytest.approx(estimates["confidence_interval"]["lower_bound"] * 1e-9)
    assert result.work["16384"] == ["B", 16384.0]
    done = run_perflab("import", CRITERION / "find_byte", "--db", tmp_path / "store.db")
    assert done.returncode == 0 and "stored as run 1 (find_byte)" in done.stderr


def test_a_directory_without_criterion_results_is_one_clear_error(tmp_path):
    with pytest.raises(ResultsFileError, match="no criterion results"):
        load_file(tmp_path)
    broken = tmp_path / "g" / "f" / "new"
    broken.mkdir(parents=True)
    (broken / "estimates.json").write_text("{}")
    (broken / "benchmark.json").write_text('{"group_id": "g"}')
    (broken / "sample.json").write_text("{}")
    with pytest.raises(ResultsFileError, match="not criterion output"):
        load_file(tmp_path)
    gbench = tmp_path / "g.json"
    gbench.write_text(json.dumps({"context": {}, "benchmarks": [{"name": "BM_x", "run_type": "iteration"}]}))
    with pytest.raises(ResultsFileError, match="not valid Google Benchmark JSON"):
        load_file(gbench)
