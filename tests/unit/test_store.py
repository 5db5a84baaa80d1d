"""The results store: round trips, where it lives, and refusing files it must not touch."""

from __future__ import annotations

import argparse
import io
import os
import sqlite3
import subprocess
import threading
from collections import Counter

import pytest
from rich.console import Console
from support.store_results import downgrade, synthetic_result
from support.store_shared import digest, foreign_sqlite

from perflab.cli.support.measuring import save_run
from perflab.profile.model import Profile
from perflab.results import schema, store
from perflab.results.model import RunResult
from perflab.results.store import Store, StoreError


def newer_perflab(path):
    with Store.open(path) as db:
        db.save(synthetic_result())
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {schema.schema_version() + 1}")
    raw.close()


def corrupted(path):
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(5000))


def not_sqlite(path):
    path.write_text("name,value\nada,1\n")


def test_a_run_is_stored_whole_with_indexed_columns(tmp_path):
    result = synthetic_result(commit="a" * 40)
    with Store.open(tmp_path / "db" / "perflab.db") as db:
        run_id = db.save(result)
        assert db.result(run_id).to_json() == RunResult.from_json(result.to_json()).to_json()
        [run] = db.runs("bench")
        assert (run.git_commit, run.git_branch, run.git_dirty, run.label) == ("a" * 40, "main", False, "aaaaaaaa")
        [measurement] = db.measurements("bench")
        median = result.cells[0].estimates.median
        assert (measurement.case, measurement.contender) == ("SMALL", "base")
        assert (measurement.median, measurement.low, measurement.high) == (median.value, median.low, median.high)
    raw = sqlite3.connect(tmp_path / "db" / "perflab.db")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("SELECT packages FROM runs").fetchone()[0].startswith('{"numpy"')


def test_default_path_is_the_git_top_level_of_the_benchmark_else_cwd(tmp_path, monkeypatch):
    monkeypatch.delenv(store.ENV_VAR, raising=False)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert store.default_path(repo / "sub" / "bench.py") == repo / ".perflab" / "perflab.db"
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert store.default_path(outside / "bench.py") == outside / ".perflab" / "perflab.db"
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path / "elsewhere.db"))
    assert store.default_path(repo / "sub" / "bench.py") == tmp_path / "elsewhere.db"


@pytest.mark.parametrize(
    "make, message",
    [
        (foreign_sqlite, "not a perflab database"),
        (newer_perflab, "newer perflab"),
        (corrupted, "not a usable perflab database"),
        (not_sqlite, "not a usable perflab database"),
    ],
)
def test_files_that_are_not_ours_are_refused_and_left_untouched(tmp_path, make, message):
    path = tmp_path / "perflab.db"
    make(path)
    before = digest(path)
    with pytest.raises(StoreError, match=message) as error:
        Store.open(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    assert digest(path) == before


def test_old_databases_are_migrated_and_keep_their_runs(tmp_path, monkeypatch):
    path = tmp_path / "perflab.db"
    with Store.open(path) as db:
        db.save(synthetic_result(commit="b" * 40))

    def add_note_column(connection):
        connection.execute("ALTER TABLE runs ADD COLUMN note TEXT")

    monkeypatch.setattr(store, "MIGRATIONS", [*schema.MIGRATIONS, add_note_column])
    with Store.open(path) as db:
        assert len(db.runs("bench")) == 1
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == len(store.MIGRATIONS)
    assert "note" in [row[1] for row in raw.execute("PRAGMA table_info(runs)")]


def test_a_version_1_database_gains_the_profiles_table_and_keeps_everything(tmp_path, monkeypatch):
    path = tmp_path / "perflab.db"
    with Store.open(path) as db:
        run_id = db.save(synthetic_result(commit="c" * 40))
    downgrade(path, 1)  # the store of the perflab of schema version 1
    before = RunResult.from_json(synthetic_result(commit="c" * 40).to_json()).to_json()
    with Store.open(path) as db:
        assert [run.id for run in db.runs("bench")] == [run_id] and db.result(run_id).to_json() == before
        assert db.profile(run_id, "SMALL", "base") is None
        profile = Profile(
            [Counter({("encode (<project>/bench.py:3)", "pad (<project>/bench.py:9)"): 7})],
            {"case": "SMALL", "contender": "base"},
        )
        db.save_profile(run_id, "SMALL", "base", profile)
        assert db.profile(run_id, "SMALL", "base").to_json() == profile.to_json()
        assert db.profiled_runs("bench", "SMALL", "base") == {run_id}
        with pytest.raises(StoreError, match="no stored run with id 99"):
            db.save_profile(99, "SMALL", "base", profile)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == schema.schema_version()


def test_a_missing_database_is_not_created_by_readers(tmp_path):
    with pytest.raises(StoreError, match="no perflab database"):
        Store.open(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_the_stored_message_names_a_database_path_as_it_is(tmp_path):
    # A folder name with rich markup in it: printed as written, not read as a style.
    folder = tmp_path / "[bold]results[red]"
    folder.mkdir()
    path = folder / "perflab.db"
    err = Console(file=io.StringIO(), width=40, soft_wrap=True)
    args = argparse.Namespace(no_store=False, db=str(path), json=None)
    saved = save_run(synthetic_result(), path.with_name("bench.py"), args, err)
    assert saved.run_id == 1
    assert err.file.getvalue().strip() == f"stored as run 1 in {path}"


def test_a_new_store_waits_for_a_writer_before_it_converts_its_journal(tmp_path):
    """Converting a new file to WAL needs it to itself, and SQLite answers "locked" at once while
    another connection holds its write lock (no busy timeout there): the store retries. A writer
    holding a new file for 0.3 s, as another process creating the same store may, made the open
    fail at once with "locked for 30 s"."""
    path = tmp_path / "new.db"
    sqlite3.connect(path).close()  # an empty file, still in the default journal mode
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")  # the write lock, held
    release = threading.Timer(0.3, writer.execute, ["COMMIT"])
    release.start()
    try:
        with Store.open(path) as db:
            db.save(synthetic_result())
    finally:
        release.join()
        writer.close()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_full_disk_is_said_as_such_and_the_store_is_left_as_it_was(tmp_path):
    """SQLite rolls the transaction back itself on a full disk; the store's own rollback then failed
    and its "cannot rollback - no transaction is active" hid the cause (issue 42). The disk is made
    full as SQLite sees it: a page limit on the store's connection."""
    from support.store_results import synthetic_result

    with Store.open(tmp_path / "s.db") as store:
        store.save(synthetic_result(seed=1))
        connection = store._db._db  # the real sqlite3 connection: max_page_count is per connection
        connection.execute(f"PRAGMA max_page_count = {connection.execute('PRAGMA page_count').fetchone()[0] + 1}")
        large = synthetic_result(processes=200, cases=tuple(f"C{i}" for i in range(30)))
        with pytest.raises(StoreError, match=r"database or disk is full"):
            store.save(large)
        assert len(store.runs()) == 1
