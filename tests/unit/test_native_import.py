"""``perflab import`` of native benchmark harnesses: Google Benchmark JSON made here by a real
program (tests/native/gbench_find.cpp, linked against Debian's libbenchmark-dev) and real
criterion.rs output captured from tests/native/criterion_find (tests/data/criterion/README.md)."""

import json

import pytest

from perflab.results.files import ResultsFileError, load_file


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
