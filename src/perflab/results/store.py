"""The results store: every run kept in one SQLite file, for history, change points and the CI gate.

Each run is saved whole (the ``RunResult`` JSON, so nothing measured is ever thrown away) next to
indexed columns that history queries need: benchmark, git commit/branch/dirty, machine and
interpreter fingerprints, and one row per (case, contender) with its median and 95% interval.

Safety rules, because a store collects months of measurements:
- A file that is not a perflab database (another program's SQLite file, a corrupted file, a
  database written by a newer perflab) is refused with ``StoreError`` and never written to.
- A run is saved in one transaction: a process killed mid-write leaves the previous state.
- WAL journal + busy timeout: several perflab processes can write at once (readers never block
  writers; writers queue for up to ``BUSY_TIMEOUT_MS``).
- The schema is versioned (``PRAGMA user_version``) and upgraded by the migrations in
  ``MIGRATIONS``, in code; an upgrade runs all pending steps in one transaction.

Profiles taken by ``perflab run --profile`` are kept too (schema version 2), one per (run, case,
contender), as the same JSON ``perflab profile --json`` writes.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from perflab import git
from perflab.results.fingerprints import machine_fingerprint, python_fingerprint

if TYPE_CHECKING:  # imported when needed: results pulls in scipy, and the CLI imports this module
    from perflab.profile.model import Profile
    from perflab.results.model import RunResult

ENV_VAR = "PERFLAB_DB"
DEFAULT_RELATIVE_PATH = Path(".perflab") / "perflab.db"
# Identifies a perflab database in the SQLite header ("PFLB"), so foreign files are recognised.
APPLICATION_ID = 0x50464C42
BUSY_TIMEOUT_MS = 30_000


class StoreError(Exception):
    """The database cannot be used; the message is one line naming the file and what to do."""


def _migrate_to_1(db: sqlite3.Connection) -> None:
    _execute_script(db, """
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
    """)


def _migrate_to_2(db: sqlite3.Connection) -> None:
    # Profiles taken by `perflab run --profile`, kept next to the run they belong to so that a
    # history can diff the profiles of the commits around a change point.
    _execute_script(db, """
        CREATE TABLE profiles (
            run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            case_name   TEXT NOT NULL,
            contender   TEXT NOT NULL,
            profile     TEXT NOT NULL,           -- perflab.profile/1 JSON, as `perflab profile --json` writes
            PRIMARY KEY (run_id, case_name, contender)
        )
    """)


def _started_at(metadata: dict) -> float | None:
    """When a run started (its metadata's ISO time), in seconds since the epoch; None if unknown."""
    from datetime import datetime
    try:
        return datetime.fromisoformat(str(metadata.get("started_at"))).timestamp()
    except ValueError:
        return None


def _execute_script(db: sqlite3.Connection, script: str) -> None:
    """Statements one by one (``executescript`` would commit the migration's open transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


# MIGRATIONS[i] upgrades a database at version i to version i + 1. Append, never edit.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_migrate_to_1, _migrate_to_2]


def schema_version() -> int:
    return len(MIGRATIONS)


def default_path(benchmark_file: str | Path | None = None) -> Path:
    """``$PERFLAB_DB``, else .perflab/perflab.db at the git top level of the benchmark file (or of the
    current directory when there is no file), else in the current directory."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    start = Path(benchmark_file).resolve().parent if benchmark_file is not None else Path.cwd()
    return (git.top_level(start) or Path.cwd()) / DEFAULT_RELATIVE_PATH


@dataclass(frozen=True)
class StoredRun:
    """A run's indexed columns (the full result is loaded on demand with ``Store.result``)."""

    id: int
    benchmark: str
    created: float
    source: str
    git_commit: str | None
    git_branch: str | None
    git_dirty: bool
    commit_time: float | None
    machine_id: str
    cpu_model: str | None
    python_id: str
    python_version: str | None

    @property
    def label(self) -> str:
        """Short commit (with '+' for uncommitted changes), or the run id outside git."""
        if not self.git_commit:
            return f"run {self.id}"
        return self.git_commit[:8] + ("+" if self.git_dirty else "")


@dataclass(frozen=True)
class Measurement:
    run: StoredRun
    case: str
    contender: str
    median: float
    low: float | None
    high: float | None
    processes: int


class Store:
    """An open perflab database. Use ``Store.open(path)``; close it (or use ``with``)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection

    @classmethod
    def open(cls, path: str | Path, create: bool = True) -> Store:
        path = Path(path)
        if not path.exists():
            if not create:
                raise StoreError(f"{path}: no perflab database here (run `perflab run` first, or pass --db)")
            path.parent.mkdir(parents=True, exist_ok=True)
        elif path.is_dir():
            raise StoreError(f"{path}: is a directory, not a perflab database (pass --db FILE)")
        try:
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(f"{path}: cannot open the database: {error}") from None
        store = cls(path, connection)
        try:
            store._prepare()
        except BaseException:
            connection.close()
            raise
        return store

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _prepare(self) -> None:
        """Check that the file is ours and current, before anything could write to it."""
        with self._errors():
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            application_id, version, tables = self._identity()
            if application_id != APPLICATION_ID and (application_id != 0 or tables):
                raise StoreError(f"{self.path}: not a perflab database (another program's SQLite file); "
                                 "it was left untouched: pass --db with another path")
            if version > schema_version():
                raise StoreError(f"{self.path}: written by a newer perflab (schema {version}, this perflab "
                                 f"reads up to {schema_version()}); upgrade perflab. The file was left untouched")
            self._db.execute("PRAGMA journal_mode = WAL")  # many writers; survives a killed process
            self._db.execute("PRAGMA foreign_keys = ON")
            if version < schema_version():
                self._migrate()

    def _identity(self) -> tuple[int, int, int]:
        """Application id, schema version and number of tables, read in one statement (one read
        transaction): read apart, another process creating the database in between would make
        a new perflab database look like another program's file."""
        return self._db.execute("SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_master) "
                                "FROM pragma_application_id() AS a, pragma_user_version() AS v").fetchone()

    def _migrate(self) -> None:
        # BEGIN IMMEDIATE takes the write lock first, so two processes creating the same
        # database at once run the migrations once; the second sees the new version.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            application_id, version, tables = self._identity()
            if application_id not in (0, APPLICATION_ID) or (application_id == 0 and tables):
                raise StoreError(f"{self.path}: not a perflab database; it was left untouched")
            for migration in MIGRATIONS[version:]:
                migration(self._db)
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._db.execute(f"PRAGMA user_version = {schema_version()}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's own errors on a damaged or foreign file, as one line naming the file."""
        try:
            yield
        except sqlite3.OperationalError as error:
            if "readonly" in str(error) or "read-only" in str(error):
                raise StoreError(f"{self.path}: cannot write to the database ({error}): give yourself write "
                                 "permission on it and its directory, or pass --db with another path") from None
            if "locked" in str(error) or "busy" in str(error):
                raise StoreError(f"{self.path}: the database stayed locked by another process for "
                                 f"{BUSY_TIMEOUT_MS / 1000:g} s; try again") from None
            raise StoreError(f"{self.path}: cannot use the database ({error}); it was left untouched") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: not a usable perflab database ({error}); it was left "
                             "untouched: restore it from a backup or pass --db with another path") from None

    def save(self, result: RunResult, source: str = "run") -> int:
        """Store one run (its full JSON and indexed columns) in one transaction; return its id."""
        meta = result.metadata
        revision = meta.get("git") or {}
        machine = meta.get("machine") or {}
        python = meta.get("python") or {}
        commit = revision.get("commit")
        row = {
            "benchmark": result.benchmark, "file": result.file, "source": source,
            # An imported run is dated when it ran, not when it was imported.
            "created": (_started_at(meta) if source == "import" else None) or time.time(),
            "git_commit": commit, "git_branch": revision.get("branch"),
            "git_dirty": int(bool(revision.get("dirty"))) if commit else None,
            "commit_time": revision.get("commit_time")
            or (git.commit_time(Path(result.file).resolve().parent, commit) if commit else None),
            "machine_id": machine_fingerprint(machine), "cpu_model": machine.get("cpu_model"),
            "cpu_count": machine.get("cpu_count"), "os": machine.get("os"), "kernel": machine.get("kernel"),
            "python_id": python_fingerprint(python), "python_version": python.get("version"),
            "python_build": python.get("build"),
            "packages": json.dumps(meta.get("packages") or {}, sort_keys=True),
            "result": json.dumps(result.to_json()),
        }
        cells = [(c.case, c.contender, c.estimates) for c in result.cells if c.estimates is not None]
        with self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                run_id = self._db.execute(
                    f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                    list(row.values())).lastrowid
                self._db.executemany(
                    "INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(run_id, case, contender, e.median.value, _finite_or_none(e.median.low),
                      _finite_or_none(e.median.high), e.processes) for case, contender, e in cells])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        assert run_id is not None   # set by the INSERT above
        return run_id

    def find(self, result: RunResult) -> int | None:
        """The id of a stored run identical to ``result`` (the same file imported again), if any."""
        with self._errors():
            row = self._db.execute("SELECT id FROM runs WHERE result = ? LIMIT 1",
                                   [json.dumps(result.to_json())]).fetchone()
        return row[0] if row else None

    def runs(self, benchmark: str | None = None) -> list[StoredRun]:
        """Stored runs, oldest commit first (runs outside git by the time they were saved)."""
        where, args = ("WHERE benchmark = ?", [benchmark]) if benchmark else ("", [])
        with self._errors():
            rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs {where} "
                                    "ORDER BY coalesce(commit_time, created), created, id", args).fetchall()
        return [_stored_run(row) for row in rows]

    def benchmarks(self) -> list[str]:
        with self._errors():
            return [r[0] for r in self._db.execute("SELECT DISTINCT benchmark FROM runs ORDER BY 1")]

    def measurements(self, benchmark: str, case: str | None = None,
                     contender: str | None = None) -> list[Measurement]:
        """Every stored (case, contender) estimate of ``benchmark``, in history order."""
        runs = {run.id: run for run in self.runs(benchmark)}
        conditions, args = ["r.benchmark = ?"], [benchmark]
        for column, value in (("m.case_name", case), ("m.contender", contender)):
            if value is not None:
                conditions.append(f"{column} = ?")
                args.append(value)
        with self._errors():
            rows = self._db.execute(
                "SELECT m.run_id, m.case_name, m.contender, m.median, m.low, m.high, m.processes "
                "FROM measurements m JOIN runs r ON r.id = m.run_id WHERE " + " AND ".join(conditions),
                args).fetchall()
        order = {run_id: index for index, run_id in enumerate(runs)}
        rows.sort(key=lambda row: order[row[0]])
        return [Measurement(runs[row[0]], *row[1:]) for row in rows]

    def result(self, run_id: int) -> RunResult:
        from perflab.results.model import RunResult
        with self._errors():
            row = self._db.execute("SELECT result FROM runs WHERE id = ?", [run_id]).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no stored run with id {run_id}")
        return RunResult.from_json(json.loads(row[0]))

    def save_profile(self, run_id: int, case: str, contender: str, profile: Profile) -> None:
        """Keep the profile of one (case, contender) of a stored run (replacing an earlier one)."""
        text = json.dumps(profile.to_json())
        with self._errors():
            try:
                self._db.execute("INSERT OR REPLACE INTO profiles VALUES (?, ?, ?, ?)",
                                 [run_id, case, contender, text])
            except sqlite3.IntegrityError:   # the foreign key: the run is not (or no longer) stored
                raise StoreError(f"{self.path}: no stored run with id {run_id} to attach the profile of "
                                 f"{case} / {contender} to") from None

    def profiled_runs(self, benchmark: str, case: str, contender: str) -> set[int]:
        """Ids of the runs of ``benchmark`` with a stored profile of (case, contender)."""
        with self._errors():
            rows = self._db.execute(
                "SELECT p.run_id FROM profiles p JOIN runs r ON r.id = p.run_id "
                "WHERE r.benchmark = ? AND p.case_name = ? AND p.contender = ?", [benchmark, case, contender])
            return {row[0] for row in rows}

    def profile(self, run_id: int, case: str, contender: str) -> Profile | None:
        """The stored profile of (case, contender) in run ``run_id``, or None."""
        from perflab.profile.model import Profile
        with self._errors():
            row = self._db.execute("SELECT profile FROM profiles WHERE run_id = ? AND case_name = ? AND contender = ?",
                                   [run_id, case, contender]).fetchone()
        return Profile.from_json(json.loads(row[0])) if row else None



_RUN_COLUMNS = ("id, benchmark, created, source, git_commit, git_branch, git_dirty, commit_time, "
                "machine_id, cpu_model, python_id, python_version")


def _stored_run(row: tuple) -> StoredRun:
    values = list(row)
    values[6] = bool(values[6])
    return StoredRun(*values)


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def resolve_ref(benchmark_file: str | Path, ref: str) -> str | None:
    """The commit a git ref (branch, tag, hash) names in the benchmark file's repository."""
    return git.resolve_commit(Path(benchmark_file).resolve().parent, ref)
