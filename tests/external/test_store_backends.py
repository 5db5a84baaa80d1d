"""The store's interface, the same tests on both backends: a SQLite file and a real PostgreSQL
database (a throwaway cluster, tests/support/postgres_server.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import psycopg
import pytest
from support.cli import QUICK, run_perflab
from support.postgres_server import new_database
from support.store_results import synthetic_result

from perflab.measure.metadata import machine_info
from perflab.profile.model import Profile
from perflab.results.backends.postgres import PostgresDatabase
from perflab.results.schema import MIGRATIONS, schema_version
from perflab.results.store import ChangeMark, Store, StoreError

OPEN_STORE = "import sys; from perflab.results.store import Store; Store.open(sys.argv[1]).close(); print('opened')"


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "perflab.db")
    return request.getfixturevalue("postgres_url")


class _Interleaved:
    """A psycopg connection on which another process's Store.open runs, whole, right after our
    statement number ``after``: the race of workers starting together, made to happen every time.
    Counts the statements that come before the migration lock (after it the other opener waits)."""

    def __init__(self, connection, url, after=None):
        self._connection, self._url, self._after = connection, url, after
        self.statements_before_lock, self._locked = 0, False

    def execute(self, sql, *args, **kwargs):
        cursor = self._connection.execute(sql, *args, **kwargs)
        self._locked = self._locked or "pg_advisory_lock" in str(sql)
        if not self._locked:
            self.statements_before_lock += 1
            if self.statements_before_lock == self._after:
                subprocess.run([sys.executable, "-c", OPEN_STORE, self._url], check=True, capture_output=True)
        return cursor

    def __getattr__(self, name):
        return getattr(self._connection, name)


def _open_interleaved(url, after=None):
    connection = _Interleaved(psycopg.connect(url, autocommit=True), url, after)
    database = PostgresDatabase(url, connection)
    try:
        database._prepare(MIGRATIONS, create=True, read_only=False)
        assert database.execute("SELECT version FROM perflab_schema").fetchall() == [(len(MIGRATIONS),)]
    finally:
        database.close()
    return connection.statements_before_lock


def test_a_run_is_stored_whole_and_read_back_in_history_order(location):
    with Store.open(location) as store:
        later = store.save(synthetic_result(time=2e-5, seed=1, commit="b" * 40))
        earlier = store.save(synthetic_result(time=1e-5, seed=2, commit="a" * 40))
        assert store.result(later).to_json() == synthetic_result(time=2e-5, seed=1, commit="b" * 40).to_json()
        assert {run.id for run in store.runs("bench")} == {earlier, later}
        assert store.benchmarks() == ["bench"]
        [first, second] = store.measurements("bench", "SMALL", "base")
        assert first.median == pytest.approx(first.run and store.result(first.run.id).cells[0].estimates.median.value)
        assert {first.run.id, second.run.id} == {earlier, later}
        assert store.version()[:2] == (2, max(earlier, later))
        assert store.run(later).machine_id == store.run(earlier).machine_id
        with pytest.raises(StoreError, match="no stored run with id 999"):
            store.result(999)


def test_a_run_is_stored_once_by_its_stable_id(location):
    result = synthetic_result(commit="c" * 40)
    with Store.open(location) as store:
        run_id = store.save(result)
        assert store.find(result) == run_id
        with pytest.raises(StoreError, match="stored already"):
            store.save(result)
        [(uid, created)] = store.uids().values()
        assert store.find_uid(uid) == run_id and len(store.runs()) == 1


def test_a_job_has_one_result_stored_whole_or_not_at_all(location):
    sides = [synthetic_result(commit="a" * 40, seed=1), synthetic_result(commit="b" * 40, seed=2)]
    with Store.open(location) as store:
        assert store.runs_of_job(7) is None
        run_ids = store.save_job(7, sides, "box")
        assert store.runs_of_job(7) == run_ids and len(run_ids) == 2
        with pytest.raises(StoreError, match="stored already"):
            store.save_job(7, [synthetic_result(commit="c" * 40, seed=3)], "other")
        assert len(store.runs()) == 2  # the refused result left nothing behind
        assert store.job_results() == {7: ("box", run_ids)}
        store.record_job_failure(8, 1, "box", "exit code 1")
        store.record_job_failure(8, 2, "twin", "killed")
        assert store.job_failures() == {8: "killed (on twin)"}


def test_marks_and_profiles_replace_earlier_ones(location):
    profile = Profile([Counter({("encode (bench.py:3)",): 7})], {"case": "SMALL", "contender": "base"})
    with Store.open(location) as store:
        run_id = store.save(synthetic_result(commit="e" * 40))
        store.save_profile(run_id, "SMALL", "base", profile)
        store.save_profile(run_id, "SMALL", "base", profile)
        assert store.profiled_runs("bench", "SMALL", "base") == {run_id}
        assert store.profile(run_id, "SMALL", "base").to_json() == profile.to_json()
        with pytest.raises(StoreError, match="no stored run with id 99"):
            store.save_profile(99, "SMALL", "base", profile)
        mark = ChangeMark("bench", "SMALL", "base", "m", "p", "abc", "acknowledged", "known")
        store.mark_change(mark)
        store.mark_change(ChangeMark("bench", "SMALL", "base", "m", "p", "abc", "ignored", "noise", 5.0))
        assert [(m.status, m.note, m.marked) for m in store.change_marks()] == [("ignored", "noise", 5.0)]


def test_machines_are_listed_by_fingerprint(location):
    box = {"cpu_model": "Box CPU", "cpu_count": 8, "os": "Linux", "kernel": "6.1", "hostname": "box"}
    with Store.open(location) as store:
        store.save(synthetic_result(commit="a" * 40, machine=box))
        store.save(synthetic_result(commit="b" * 40, seed=1, machine={**box, "hostname": "twin"}))
        store.save(synthetic_result(commit="c" * 40, seed=2))
        machines = store.machines()
        assert len(machines) == 2
        [twin] = [m for m in machines if m.cpu_model == "Box CPU"]
        assert twin.hostname == "twin" and twin.cpu_count == 8
        assert {run.machine_id for run in store.runs()} == {m.machine_id for m in machines}


def test_a_snapshot_sees_one_state_while_another_process_writes(location):
    with Store.open(location) as store:
        store.save(synthetic_result(commit="a" * 40))
        with store.snapshot():
            before = store.version()
            with Store.open(location) as other:
                other.save(synthetic_result(commit="b" * 40, seed=1))
            assert store.version() == before
        assert store.version()[0] == 2


def test_a_read_only_store_refuses_writes_and_is_never_created(location):
    with pytest.raises(StoreError, match="no perflab"):
        Store.open(location, read_only=True)
    with Store.open(location) as store:
        store.save(synthetic_result(commit="a" * 40))
    with Store.open(location, read_only=True) as store, pytest.raises(StoreError):
        store.save(synthetic_result(commit="b" * 40, seed=1))
    with Store.open(location, create=False) as store:
        assert len(store.runs()) == 1


def test_processes_opening_a_new_store_together_migrate_it_once(location):
    processes = [
        subprocess.Popen([sys.executable, "-c", OPEN_STORE, location], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    assert [p.communicate(timeout=120)[0].strip() for p in processes] == ["opened"] * 4
    with Store.open(location) as store:
        assert store.runs() == []


def test_a_store_created_by_another_process_between_our_statements_is_opened(postgres_server):
    before_lock = _open_interleaved(new_database(postgres_server))
    assert before_lock >= 1
    for after in range(1, before_lock + 1):
        _open_interleaved(new_database(postgres_server), after)


def test_a_postgres_database_of_another_program_is_left_untouched(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as raw:
        raw.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError, match="not a perflab database"):
        Store.open(postgres_url)
    with psycopg.connect(postgres_url) as raw:
        tables = raw.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
        assert [row[0] for row in tables] == ["invoices"]


def test_a_postgres_store_of_a_newer_perflab_is_refused(postgres_url):
    Store.open(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as raw:
        raw.execute("UPDATE perflab_schema SET version = %s", [schema_version() + 1])
    with pytest.raises(StoreError, match="newer perflab"):
        Store.open(postgres_url)


def test_the_command_line_runs_into_a_postgres_store_and_reads_its_history(postgres_url, bench_file, tmp_path):
    bench = bench_file(
        """
        import perflab

        bench = perflab.Benchmark("summing")


        @bench.case
        def SMALL():
            return 10


        @bench.contender
        def builtin_sum(n):
            return sum(range(n))
        """
    )
    env = {**os.environ, "PERFLAB_DB": postgres_url}
    ran = run_perflab("run", str(bench), *QUICK, env=env)
    assert ran.returncode == 0 and "stored as run 1 in postgresql://" in ran.stderr.replace("\n", ""), ran.stderr
    history = run_perflab("history", "summing", "--machine", machine_info()["hostname"], env=env)
    assert history.returncode == 0 and "— 1 run(s)" in history.stdout, history.stderr
    with Store.open(postgres_url) as store:
        [machine] = store.machines()
        assert machine.hostname == machine_info()["hostname"] and store.runs()[0].machine_id == machine.machine_id
