"""A queue worker whose store goes away while it measures keeps the measurement (issue 42: it was
discarded, and the job measured again by another worker), and stores that measurement when the
job runs again, rather than measuring it again: the real `perflab run` subprocess a job runs, and
a real store taken away mid-measurement: a SQLite store's folder replaced by a file, or a real
PostgreSQL server stopped as a crash would stop it (``pg_ctl stop -m immediate``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.cli import QUICK
from support.postgres_server import BIN_DIRS, Cluster, new_database

from perflab.queue.execute import JobFailed, Worker, execute
from perflab.queue.job_spec import JobSpec
from perflab.results.files import load_file
from perflab.results.store import Store

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


@pytest.fixture
def sqlite_store(tmp_path) -> Iterator[tuple[str, Callable[[], None], Callable[[], None]]]:
    """A SQLite store, its folder replaced by a file to take it away, and put back."""
    home = tmp_path / "store"
    home.mkdir()

    def away() -> None:
        shutil.rmtree(home)
        home.write_text("not a folder")

    def back() -> None:
        home.unlink()
        home.mkdir()

    yield str(home / "perflab.db"), away, back


@pytest.fixture
def postgres_store() -> Iterator[tuple[str, Callable[[], None], Callable[[], None]]]:
    """A database on a PostgreSQL server of this test's own, stopped to take it away and started again."""
    if not BIN_DIRS:
        pytest.skip("PostgreSQL is not installed (/usr/lib/postgresql/*/bin): apt-get install -y postgresql")
    cluster = Cluster()
    try:
        cluster.start()
        yield new_database(cluster.url), cluster.stop, cluster.start
    finally:
        cluster.remove()


@pytest.mark.parametrize("store", ["sqlite_store", "postgres_store"])
def test_a_measurement_whose_store_went_away_is_kept_and_stored_when_the_job_runs_again(
    store, request, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench.py").write_text(BENCH)
    location, away, back = request.getfixturevalue(store)
    with Store.open(location):
        pass  # created while it is there
    worker = Worker(location, tmp_path / "cache", "box")
    polls = []

    def store_goes_away() -> bool:
        if not polls:  # after the job started: the store cannot be opened any more
            away()
        polls.append(1)
        return False

    spec = JobSpec(str(tmp_path / "bench.py"), options=QUICK)
    with pytest.raises(JobFailed) as failed:
        execute(7, spec, worker, store_goes_away)
    assert polls, "the job ended before the store could be taken away"
    [unsaved] = tmp_path.glob("perflab-unsaved-*.json")
    message = str(failed.value)
    assert (
        f"its measurement is kept in {unsaved} (`perflab import {unsaved}` once the store is back, or this "
        "worker stores it when job 7 runs again)"
    ) in message
    assert "\n" not in message
    measured = load_file(unsaved)
    assert measured.benchmark == "slow_to_build" and all(cell.estimates for cell in measured.cells)

    back()
    polls.clear()
    [run_id] = execute(7, spec, worker, lambda: bool(polls.append(1)))
    assert not polls, "the job was measured again"  # no measuring subprocess was waited on
    with Store.open(location) as opened:
        assert opened.runs_of_job(7) == [run_id] and len(opened.runs()) == 1
        stored = opened.result(run_id)
    assert [cell.process_values() for cell in stored.cells] == [cell.process_values() for cell in measured.cells]
    assert not list(Path(tmp_path / "cache").rglob("job-7.json"))  # stored once: not kept any more
