"""The store's schema: the migrations that build and upgrade it, in code, the same on both backends.

Version 1: runs and their (case, contender) rows. 2: profiles kept with runs. 3: other metrics per
call (instructions, memory) and change-point marks. 4: stable run ids, machines, and the outcome
of queued jobs. 5: commit generations, which order histories, and the cells whose speed does not
count (not equivalent, repeat-only). 6: what each machine can detect (``perflab qualify``).
``MIGRATIONS[i]`` upgrades a database at version i to version i + 1.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from typing import TYPE_CHECKING, Any

from perflab.results.backends.common import Database, Migration
from perflab.results.fingerprints import machine_fingerprint

if TYPE_CHECKING:
    from perflab.results.model import RunResult

# Rows derived from a run's JSON: written when a run is saved, and by the migrations that added them.


def run_uid(result: dict[str, Any]) -> str:
    """A run's stable id: the hash of its results JSON (keys sorted), equal wherever it is stored."""
    return hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()[:32]


def record_machine(db: Database, machine: dict[str, Any], seen: float) -> None:
    db.execute(
        "INSERT INTO machines VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (machine_id) DO UPDATE SET "
        "hostname = CASE WHEN excluded.last_seen >= machines.last_seen THEN excluded.hostname ELSE machines.hostname END, "
        "last_seen = CASE WHEN excluded.last_seen >= machines.last_seen THEN excluded.last_seen ELSE machines.last_seen END",
        [
            machine_fingerprint(machine),
            machine.get("cpu_model"),
            machine.get("cpu_count"),
            machine.get("os"),
            machine.get("kernel"),
            machine.get("hostname"),
            seen,
        ],
    )


ALLOCATED_METRIC = "allocated"  # metric_values' name of bytes allocated per call (history --metric memory)
PEAK_METRIC = "peak"  # bytes live at the calls' peak (memray), indexed for runs saved since; the web charts it


def metric_rows(result: dict[str, Any]) -> list[tuple[str, str, str, float, float | None, float | None, int]]:
    """(case, contender, metric, value, low, high, processes) of a results JSON's ``metrics``:
    instructions per call (median, smallest and largest process), peak traced memory per call, and
    bytes allocated per call and at the peak ("allocated", "peak": median, smallest and largest
    process, memray)."""
    metrics = result.get("metrics") or {}
    rows = []
    for count in metrics.get("instructions") or []:
        per_call = count.get("per_call") or []
        if per_call:
            rows.append(
                (
                    count["case"],
                    count["contender"],
                    "instructions",
                    statistics.median(per_call),
                    min(per_call),
                    max(per_call),
                    len(per_call),
                )
            )
    for use in metrics.get("memory") or []:
        if use.get("peak_traced") is not None:
            rows.append((use["case"], use["contender"], "memory", float(use["peak_traced"]), None, None, 1))
        for metric, per_process in ((ALLOCATED_METRIC, "allocated_per_call"), (PEAK_METRIC, "peak_allocated")):
            values = use.get(per_process) or []
            if values:
                row = (statistics.median(values), min(values), max(values), len(values))
                rows.append((use["case"], use["contender"], metric, *row))
    return rows


def struck_rows(result: RunResult) -> list[tuple[str, str, str]]:
    """(case, contender, verdict) of the measured cells of ``result`` whose speed does not count:
    verdict "invalid" (not equivalent) or "repeat-only", as the report strikes them."""
    return [
        (cell.case, cell.contender, verdict)
        for cell in result.cells
        if cell.estimates is not None and (verdict := result.struck_cell(cell.case, cell.contender))
    ]


def _migrate_to_1(db: Database) -> None:
    db.script(
        """
        CREATE TABLE runs (
            id              INTEGER PRIMARY KEY,
            benchmark       TEXT NOT NULL,
            file            TEXT NOT NULL,
            created         REAL NOT NULL,       -- unix time the run was saved
            source          TEXT NOT NULL,       -- 'run', 'check', 'import'
            git_commit      TEXT,
            git_branch      TEXT,
            git_dirty       INTEGER,
            commit_time     REAL,                -- committer time, orders the history
            machine_id      TEXT NOT NULL,       -- fingerprint of the fields below
            cpu_model       TEXT,
            cpu_count       INTEGER,
            os              TEXT,
            kernel          TEXT,
            python_id       TEXT NOT NULL,       -- fingerprint of version and build
            python_version  TEXT,
            python_build    TEXT,
            packages        TEXT NOT NULL,       -- JSON {name: version}
            result          TEXT NOT NULL        -- the full RunResult JSON
        );
        CREATE INDEX runs_by_benchmark ON runs (benchmark, machine_id, python_id, commit_time);
        CREATE INDEX runs_by_commit ON runs (git_commit);
        CREATE INDEX runs_by_branch ON runs (git_branch);
        CREATE TABLE measurements (
            run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            case_name   TEXT NOT NULL,
            contender   TEXT NOT NULL,
            median      REAL NOT NULL,           -- seconds per call
            low         REAL,                    -- 95% interval of the median
            high        REAL,
            processes   INTEGER NOT NULL,
            PRIMARY KEY (run_id, case_name, contender)
        );
        CREATE INDEX measurements_by_cell ON measurements (case_name, contender);
    """,
    )


def _migrate_to_2(db: Database) -> None:
    # Profiles taken by `perflab run --profile`, kept next to the run they belong to so that a
    # history can diff the profiles of the commits around a change point.
    db.script(
        """
        CREATE TABLE profiles (
            run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            case_name   TEXT NOT NULL,
            contender   TEXT NOT NULL,
            profile     TEXT NOT NULL,           -- perflab.profile/1 JSON, as `perflab profile --json` writes
            PRIMARY KEY (run_id, case_name, contender)
        )
    """,
    )


def _migrate_to_3(db: Database) -> None:
    # Instructions and memory per call, one row per (run, case, contender, metric), for histories
    # and the web view without reading every run's JSON; filled from the runs already stored.
    # change_marks: a person's word on a change point (the only thing the web view writes).
    # runs.git_subject: the commit's subject line, for history tooltips (no comment in the ALTER:
    # SQLite appends the column's text to the table's stored CREATE statement).
    db.script(
        """
        CREATE TABLE metric_values (
            run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            case_name   TEXT NOT NULL,
            contender   TEXT NOT NULL,
            metric      TEXT NOT NULL,           -- 'instructions' (per call) or 'memory' (peak traced bytes)
            value       REAL NOT NULL,           -- median over the processes
            low         REAL,                    -- smallest and largest process (instructions)
            high        REAL,
            processes   INTEGER NOT NULL,
            PRIMARY KEY (run_id, case_name, contender, metric)
        );
        CREATE INDEX metric_values_by_cell ON metric_values (metric, case_name, contender);
        CREATE TABLE change_marks (
            benchmark   TEXT NOT NULL,
            case_name   TEXT NOT NULL,
            contender   TEXT NOT NULL,
            machine_id  TEXT NOT NULL,
            python_id   TEXT NOT NULL,
            after_label TEXT NOT NULL,           -- the first run at the new level (its commit label)
            status      TEXT NOT NULL CHECK (status IN ('acknowledged', 'ignored')),
            note        TEXT NOT NULL DEFAULT '',
            marked      REAL NOT NULL,           -- unix time
            PRIMARY KEY (benchmark, case_name, contender, machine_id, python_id, after_label)
        );
        ALTER TABLE runs ADD COLUMN git_subject TEXT
    """,
    )
    for run_id, text in db.execute("SELECT id, result FROM runs").fetchall():
        result = json.loads(text)
        db.executemany(
            "INSERT INTO metric_values VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(run_id, *row) for row in metric_rows(result)]
        )
        subject = ((result.get("metadata") or {}).get("git") or {}).get("subject")
        if subject:
            db.execute("UPDATE runs SET git_subject = ? WHERE id = ?", [subject, run_id])


def _migrate_to_4(db: Database) -> None:
    # runs.uid: a run's stable id (the hash of its result), the same in every store it is copied
    # to, so that `perflab import` of many stores into one stores each run once.
    # machines: one row per machine fingerprint, for history's and the dashboard's machine choice.
    db.script(
        """
        ALTER TABLE runs ADD COLUMN uid TEXT;
        ALTER TABLE runs ADD COLUMN job_id BIGINT;
        CREATE TABLE job_results (
            job_id      BIGINT PRIMARY KEY,      -- the queue's job id (perflab submit): one result each
            host        TEXT NOT NULL,           -- the worker's host
            finished    REAL NOT NULL
        );
        CREATE TABLE job_failures (
            job_id      BIGINT NOT NULL,
            attempt     INTEGER NOT NULL,
            host        TEXT NOT NULL,
            reason      TEXT NOT NULL,           -- one line: what failed
            failed      REAL NOT NULL
        );
        CREATE TABLE machines (
            machine_id  TEXT PRIMARY KEY,        -- fingerprint of CPU model, cores, OS and kernel
            cpu_model   TEXT,
            cpu_count   INTEGER,
            os          TEXT,
            kernel      TEXT,
            hostname    TEXT,                    -- the last host seen with it (not part of the fingerprint)
            last_seen   REAL NOT NULL            -- unix time of its latest run
        )
    """,
    )
    for run_id, text in db.execute("SELECT id, result FROM runs").fetchall():
        db.execute("UPDATE runs SET uid = ? WHERE id = ?", [run_uid(json.loads(text)), run_id])
    for text, created in db.execute("SELECT result, created FROM runs ORDER BY created").fetchall():
        record_machine(db, (json.loads(text).get("metadata") or {}).get("machine") or {}, created)
    db.script(
        "CREATE UNIQUE INDEX runs_by_uid ON runs (uid); CREATE INDEX runs_by_job ON runs (job_id); "
        "CREATE INDEX runs_by_machine ON runs (machine_id)"
    )


def _migrate_to_5(db: Database) -> None:
    # runs.commit_generation: how many commits the run's commit has in its history (git rev-list
    # --count); with the commit time, it orders histories as git's graph does, commits made in
    # one second included. Runs stored before it have none (NULL): they tie as before.
    # measurements.struck: the cells whose speed does not count (the dashboard marks them apart).
    db.script(
        """
        ALTER TABLE runs ADD COLUMN commit_generation INTEGER;
        ALTER TABLE measurements ADD COLUMN struck TEXT
    """,
    )
    from perflab.results.model import RunResult

    for run_id, text in db.execute("SELECT id, result FROM runs").fetchall():
        db.executemany(
            "UPDATE measurements SET struck = ? WHERE run_id = ? AND case_name = ? AND contender = ?",
            [
                (verdict, run_id, case, contender)
                for case, contender, verdict in struck_rows(RunResult.from_json(json.loads(text)))
            ],
        )


def _migrate_to_6(db: Database) -> None:
    # What a machine can detect (perflab qualify): the floors of an A/A run of one benchmark,
    # looked up by `perflab check` on the same machine. Not runs: an A/A is no point of a history.
    db.script(
        """
        CREATE TABLE qualifications (
            id              INTEGER PRIMARY KEY,
            benchmark       TEXT NOT NULL,
            machine_id      TEXT NOT NULL,       -- fingerprint of the machine it was measured on
            created         REAL NOT NULL,       -- unix time
            qualification   TEXT NOT NULL,       -- JSON: budget, settings, per (case, contender) noise and floor
            run             TEXT NOT NULL        -- JSON: the A/A runs it was computed from
        );
        CREATE INDEX qualifications_by_machine ON qualifications (benchmark, machine_id, created)
    """,
    )


# MIGRATIONS[i] upgrades a database at version i to version i + 1. Append, never edit.
MIGRATIONS: list[Migration] = [_migrate_to_1, _migrate_to_2, _migrate_to_3, _migrate_to_4, _migrate_to_5, _migrate_to_6]


def schema_version() -> int:
    return len(MIGRATIONS)
