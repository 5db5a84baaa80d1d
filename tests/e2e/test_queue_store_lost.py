"""A queue worker whose store goes away while it measures keeps the measurement (issue 42: it was
discarded, and the job measured again by another worker): the real `perflab run` subprocess a job
runs, and a real SQLite store made unusable (its folder replaced by a file) mid-measurement."""

from __future__ import annotations

import shutil

import pytest
from support.cli import QUICK

from perflab.queue.execute import JobFailed, Worker, execute
from perflab.queue.job_spec import JobSpec
from perflab.results.files import load_file

# The case takes 1.5 s to build: the job is still measuring when the worker first polls (each second).
BENCH = """
import time
import perflab

bench = perflab.Benchmark("slow_to_build")

@bench.case
def SMALL():
    time.sleep(1.5)
    return 10

@bench.contender
def builtin_sum(n):
    return sum(range(n))
"""


def test_a_measurement_whose_store_went_away_is_kept_in_an_unsaved_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench.py").write_text(BENCH)
    home = tmp_path / "store"
    home.mkdir()
    worker = Worker(home / "perflab.db", tmp_path / "cache", "box")
    polls = []

    def database_goes_away() -> bool:
        polls.append(1)
        if home.is_dir():  # after the job started: the store cannot be opened any more
            shutil.rmtree(home)
            home.write_text("not a folder")
        return False

    with pytest.raises(JobFailed) as failed:
        execute(7, JobSpec(str(tmp_path / "bench.py"), options=QUICK), worker, database_goes_away)
    assert polls, "the job ended before the store could be taken away"
    [kept] = tmp_path.glob("perflab-unsaved-*.json")
    message = str(failed.value)
    assert f"its measurement is kept in {kept} (`perflab import {kept}` once the store is back; job 7)" in message
    assert "\n" not in message
    result = load_file(kept)
    assert result.benchmark == "slow_to_build" and all(cell.estimates for cell in result.cells)
