"""Schema version 3: indexed metric values (filled from runs stored before), change-point marks,
and the read-only connection the web view reads through."""

from __future__ import annotations

import json
import sqlite3

import pytest
from support.store_results import downgrade, synthetic_result

from perflab.results import schema
from perflab.results.backends.sqlite import APPLICATION_ID
from perflab.results.store import ChangeMark, Store, StoreError


def counted(commit: str, per_call: list[float]):
    result = synthetic_result(commit=commit)
    result.metrics = {
        "instructions": [{"case": "SMALL", "contender": "base", "loops": 10, "per_call": per_call}],
        "memory": [{"case": "SMALL", "contender": "base", "loops": 10, "peak_traced": 4096}],
    }
    return result


def test_a_version_2_database_gets_its_stored_instruction_counts_indexed(tmp_path, monkeypatch):
    path = tmp_path / "perflab.db"
    with Store.open(path) as db:
        plain = db.save(synthetic_result(commit="a" * 40))
        second = db.save(synthetic_result(commit="b" * 40))
    downgrade(path, 2)  # the store of the perflab of schema version 2
    # version 2 kept a counted run's metrics in its JSON only
    raw = sqlite3.connect(path)
    raw.execute(
        "UPDATE runs SET result = ? WHERE id = ?",
        [json.dumps(counted("b" * 40, [1000.0, 1010.0, 990.0]).to_json()), second],
    )
    raw.commit()
    raw.close()
    with Store.open(path) as db:
        [instructions] = db.metric_measurements("bench", "instructions")
        assert (
            instructions.run.id,
            instructions.median,
            instructions.low,
            instructions.high,
            instructions.processes,
        ) == (second, 1000.0, 990.0, 1010.0, 3)
        [memory] = db.metric_measurements("bench", "memory", "SMALL", "base")
        assert memory.median == 4096 and memory.low is None
        assert [run.id for run in db.runs("bench")] == [plain, second]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == schema.schema_version()


def test_new_runs_index_their_metrics_as_they_are_saved(tmp_path):
    with Store.open(tmp_path / "perflab.db") as db:
        db.save(counted("c" * 40, [5.0]))
        assert [m.median for m in db.metric_measurements("bench", "instructions", contender="base")] == [5.0]
        assert db.metric_measurements("bench", "instructions", case="OTHER") == []


def test_change_marks_are_kept_and_replaced_not_duplicated(tmp_path):
    with Store.open(tmp_path / "perflab.db") as db:
        mark = ChangeMark("bench", "SMALL", "base", "m1", "p1", "abcdef12", "acknowledged", "expected: new parser")
        db.mark_change(mark)
        db.mark_change(ChangeMark("bench", "SMALL", "base", "m1", "p1", "abcdef12", "ignored"))
        [kept] = db.change_marks()
        assert (kept.status, kept.note, kept.after) == ("ignored", "", "abcdef12") and kept.marked > 0
        with pytest.raises(StoreError, match="acknowledged or ignored, not 'fixed'"):
            db.mark_change(ChangeMark("bench", "SMALL", "base", "m1", "p1", "abcdef12", "fixed"))


def test_a_read_only_store_reads_and_refuses_every_write(tmp_path):
    path = tmp_path / "perflab.db"
    with Store.open(path) as db:
        run_id = db.save(synthetic_result(commit="d" * 40))
    with Store.open(path, read_only=True) as db:
        with db.snapshot():
            assert [run.id for run in db.runs()] == [run_id]
        with pytest.raises(StoreError, match="cannot write to the database .*readonly"):
            db.save(synthetic_result(commit="e" * 40))
    with Store.open(path) as db:
        assert len(db.runs()) == 1


def test_a_read_only_store_is_never_created_nor_migrated(tmp_path):
    with pytest.raises(StoreError, match="no perflab database"):
        Store.open(tmp_path / "absent.db", read_only=True)
    assert not (tmp_path / "absent.db").exists()
    old = tmp_path / "old.db"
    raw = sqlite3.connect(old)
    raw.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    raw.execute("PRAGMA user_version = 2")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="schema 2.*to upgrade it"):
        Store.open(old, read_only=True)
    assert sqlite3.connect(old).execute("PRAGMA user_version").fetchone()[0] == 2
