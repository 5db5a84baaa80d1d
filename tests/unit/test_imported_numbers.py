"""Every imported number checked where it is read (issue 42): negative, zero, NaN, infinite and
absurd times in Google Benchmark, criterion.rs, asv, pyperf and perflab files refused in one line
naming the file, the benchmark and the field; an asv parameter grid or a file too large to read
refused before it is expanded; misshapen fields named, not misdiagnosed."""

from __future__ import annotations

import json
import math
import shutil

import pyperf
import pytest
from support.paths import TESTS

from perflab.results import imported_numbers
from perflab.results.files import ResultsFileError, load_file

IMPOSSIBLE = [-1.0, 0.0, math.nan, math.inf, 1e308, "nan"]
TIME_RULE = "a time must be a positive, finite number of seconds"
ASV = TESTS / "data" / "asv_results"
ASV_FILE = "0123abcd-existing-py_usr_bin_python3.json"
CRITERION = TESTS / "data" / "criterion"


def _gbench(real_time: object = 12.5, **context: object) -> dict:
    entry = {"name": "BM_find/64", "run_type": "iteration", "iterations": 1000, "real_time": real_time}
    return {"context": {"host_name": "box", "num_cpus": 2, **context}, "benchmarks": [{**entry, "time_unit": "ns"}]}


def _refused(path, *expected: str) -> str:
    with pytest.raises(ResultsFileError) as refused:
        load_file(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    for part in expected:
        assert part in message, message
    return message


@pytest.mark.parametrize("value", IMPOSSIBLE)
def test_an_impossible_google_benchmark_time_is_refused(value, tmp_path):
    path = tmp_path / "gbench.json"
    path.write_text(json.dumps(_gbench(value)))
    _refused(path, "benchmark 'BM_find/64': real_time is", TIME_RULE)


@pytest.mark.parametrize("value", IMPOSSIBLE)
def test_an_impossible_criterion_time_is_refused(value, tmp_path):
    shutil.copytree(CRITERION / "find_byte", tmp_path / "find_byte")
    sample = tmp_path / "find_byte" / "naive" / "1024" / "new" / "sample.json"
    data = json.loads(sample.read_text())
    sample.write_text(json.dumps({**data, "times": [value, *data["times"][1:]]}))
    _refused(tmp_path, "benchmark 'find_byte/naive/1024': sample.json times[0] / iters[0] is")


@pytest.mark.parametrize("value", IMPOSSIBLE)
def test_an_impossible_asv_time_is_refused(value, tmp_path):
    shutil.copytree(ASV, tmp_path / "results")
    path = tmp_path / "results" / "laptop" / ASV_FILE
    data = json.loads(path.read_text())
    data["results"]["suite.TimeSuite.time_upper"][11][0][1] = value  # a sample of (1, 'a')
    path.write_text(json.dumps(data))
    _refused(path, "benchmark \"suite.TimeSuite.time_upper(1, 'a')\": samples[1] is", TIME_RULE)


@pytest.mark.parametrize("value", [math.inf, 1e308])  # pyperf refuses NaN and values <= 0 itself
def test_an_impossible_pyperf_time_is_refused(value, tmp_path):
    path = tmp_path / "pyperf.json"
    suite = pyperf.BenchmarkSuite(
        [
            pyperf.Benchmark(
                [
                    pyperf.Run(
                        [1e-3, value],
                        warmups=[(1, 1e-3)],
                        metadata={"name": "parse", "loops": 1, "unit": "second"},
                        collect_metadata=False,
                    )
                ]
            )
        ]
    )
    suite.dump(str(path))
    _refused(path, "benchmark 'parse': run 0 values[1] is", TIME_RULE)


@pytest.mark.parametrize("value", IMPOSSIBLE)
def test_an_impossible_time_in_a_perflab_results_file_is_refused(value, tmp_path):
    original = load_file(TESTS / "data" / "asv_results" / "laptop" / ASV_FILE)
    path = tmp_path / "run.json"
    original.save(path)
    data = json.loads(path.read_text())
    data["cells"][0]["runs"][0]["values"][0] = value
    path.write_text(json.dumps(data))
    _refused(path, "runs[0].values[0] is", TIME_RULE)


def test_an_asv_grid_of_billions_of_combinations_is_refused_before_it_is_built(tmp_path):
    shutil.copytree(ASV, tmp_path / "results")
    path = tmp_path / "results" / "laptop" / ASV_FILE
    data = json.loads(path.read_text())
    data["results"]["suite.TimeSuite.time_upper"][1] = [[str(i) for i in range(2000)]] * 3  # 8e9
    path.write_text(json.dumps(data))
    assert path.stat().st_size < 60_000
    _refused(path, "its parameters make 8,000,000,000 combinations; perflab reads 100,000 at most")


def test_a_file_larger_than_perflab_reads_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(imported_numbers, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(_gbench()) + " " * 2000)
    _refused(path, "perflab reads results files of 0 MiB at most")


def test_asv_integer_params_are_named_as_asv_names_them(tmp_path):
    shutil.copytree(ASV, tmp_path / "results")
    path = tmp_path / "results" / "laptop" / ASV_FILE
    data = json.loads(path.read_text())
    data["results"]["suite.TimeSuite.time_upper"][1] = [[1, 2], ["'a'", "'b'"]]
    path.write_text(json.dumps(data))
    assert "suite.TimeSuite.time_upper(1, 'a')" in [cell.case for cell in load_file(path).cells]


def test_a_dict_in_the_google_benchmark_context_is_named(tmp_path):
    path = tmp_path / "gbench.json"
    path.write_text(json.dumps(_gbench(host_name={"name": "box"})))
    _refused(path, "context.host_name is a dict, not a string")
