"""asv's results files into the store (perflab.results.import_asv), in process: one run per file,
at its commit, cases named as ``perflab run`` names an asv suite's, asv's skips and failures kept."""

import json
import shutil

import pytest
from support.paths import TESTS

from perflab.results.files import ResultsFileError, load_file
from perflab.results.store import Store

RESULTS = TESTS / "data" / "asv_results"
FILE = RESULTS / "laptop" / "0123abcd-existing-py_usr_bin_python3.json"


def test_a_results_file_is_one_run_at_its_commit_with_a_case_per_combination():
    result = load_file(FILE)
    assert result.benchmark == "benchmarks"  # as perflab run names the suite of asv's default benchmark_dir
    assert result.metadata["git"]["commit"] == "0123abcd0123abcd0123abcd0123abcd0123abcd"
    assert result.metadata["git"]["commit_time"] == 1_700_000_000
    cells = {cell.case: cell for cell in result.cells}
    assert list(cells) == [
        "suite.TimeSuite.time_upper(1, 'a')",
        "suite.TimeSuite.time_upper(1, 'b')",
        "suite.TimeSuite.time_upper(2, 'a')",
        "suite.TimeSuite.time_upper(2, 'b')",
        "suite.time_sum",
    ]  # the track_ result is not a time
    assert cells["suite.TimeSuite.time_upper(1, 'a')"].process_values() == [[1.5e-07, 1.4e-07, 1.6e-07]]
    assert cells["suite.TimeSuite.time_upper(1, 'a')"].estimates.median.value == pytest.approx(1.5e-07)
    assert cells["suite.TimeSuite.time_upper(2, 'b')"].skipped == "skipped in asv"
    assert cells["suite.time_sum"].error == "failed in asv"


def test_imported_runs_are_stored_at_their_commits(tmp_path):
    with Store.open(tmp_path / "db.sqlite") as store:
        run_id = store.save(load_file(FILE, benchmark="suite"), source="import")
        stored = store.runs(benchmark="suite")
    assert [(run.id, run.git_commit, run.commit_time) for run in stored] == [
        (run_id, "0123abcd0123abcd0123abcd0123abcd0123abcd", 1_700_000_000)
    ]


def test_a_results_file_without_benchmarks_json_beside_it_is_refused(tmp_path):
    shutil.copytree(RESULTS / "laptop", tmp_path / "laptop")
    with pytest.raises(ResultsFileError, match=r"benchmarks\.json is needed"):
        load_file(tmp_path / "laptop" / FILE.name)


def test_an_older_results_format_is_refused_by_name(tmp_path):
    shutil.copytree(RESULTS, tmp_path / "results")
    path = tmp_path / "results" / "laptop" / FILE.name
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "version": 1}))
    with pytest.raises(ResultsFileError, match="asv results format 1; perflab reads format 2"):
        load_file(path)
