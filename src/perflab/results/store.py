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
contender), as the same JSON ``perflab profile --json`` writes. Schema version 3 indexes the other
metrics (instructions and memory per call) in ``metric_values`` so that a history of them reads
no run's JSON, and keeps the marks (acknowledged / ignored) that people put on change points.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    _execute_script(
        db,
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


def _migrate_to_2(db: sqlite3.Connection) -> None:
    # Profiles taken by `perflab run --profile`, kept next to the run they belong to so that a
    # history can diff the profiles of the commits around a change point.
    _execute_script(
        db,
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


def _migrate_to_3(db: sqlite3.Connection) -> None:
    # Instructions and memory per call, one row per (run, case, contender, metric), for histories
    # and the web view without reading every run's JSON; filled from the runs already stored.
    # change_marks: a person's word on a change point (the only thing the web view writes).
    # runs.git_subject: the commit's subject line, for history tooltips (no comment in the ALTER:
    # SQLite appends the column's text to the table's stored CREATE statement).
    _execute_script(
        db,
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


def metric_rows(result: dict[str, Any]) -> list[tuple[str, str, str, float, float | None, float | None, int]]:
    """(case, contender, metric, value, low, high, processes) of a results JSON's ``metrics``:
    instructions per call (median, smallest and largest process) and peak traced memory per call."""
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
    return rows


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
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_migrate_to_1, _migrate_to_2, _migrate_to_3]


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


MARK_STATUSES = ("acknowledged", "ignored")


@dataclass(frozen=True)
class ChangeMark:
    """A person's word on a change point of one series: 'acknowledged' (known, expected) or 'ignored'."""

    benchmark: str
    case: str
    contender: str
    machine_id: str
    python_id: str
    after: str  # label of the first run at the new level, as the change point names it
    status: str
    note: str = ""
    marked: float = 0.0  # unix time; 0: now, when saved


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
    def open(cls, path: str | Path, create: bool = True, read_only: bool = False) -> Store:
        """``read_only``: SQLite refuses every write on this connection (the web view's reads); the
        file must exist and be at the current schema (open it once writable to upgrade it)."""
        path = Path(path)
        if read_only:
            return cls._open_read_only(path)
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

    @classmethod
    def _open_read_only(cls, path: Path) -> Store:
        if not path.is_file():
            raise StoreError(f"{path}: no perflab database here (run `perflab run` first, or pass --db)")
        try:
            connection = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
        except sqlite3.Error as error:
            raise StoreError(f"{path}: cannot open the database: {error}") from None
        store = cls(path, connection)
        try:
            with store._errors():
                connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                application_id, version, _ = store._identity()
                if application_id != APPLICATION_ID or version != schema_version():
                    raise StoreError(
                        f"{path}: not a perflab database at schema {schema_version()} (found "
                        f"application id {application_id:#x}, schema {version}); open it with "
                        "this perflab once (e.g. `perflab history`) to upgrade it"
                    )
        except BaseException:
            connection.close()
            raise
        return store

    @contextmanager
    def snapshot(self) -> Iterator[Store]:
        """One read transaction: every query inside sees the same state, whatever is written meanwhile."""
        with self._errors():
            self._db.execute("BEGIN")
        try:
            yield self
        finally:
            self._db.execute("COMMIT")

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
                raise StoreError(
                    f"{self.path}: not a perflab database (another program's SQLite file); "
                    "it was left untouched: pass --db with another path"
                )
            if version > schema_version():
                raise StoreError(
                    f"{self.path}: written by a newer perflab (schema {version}, this perflab "
                    f"reads up to {schema_version()}); upgrade perflab. The file was left untouched"
                )
            self._db.execute("PRAGMA journal_mode = WAL")  # many writers; survives a killed process
            self._db.execute("PRAGMA foreign_keys = ON")
            if version < schema_version():
                self._migrate()

    def _identity(self) -> tuple[int, int, int]:
        """Application id, schema version and number of tables, read in one statement (one read
        transaction): read apart, another process creating the database in between would make
        a new perflab database look like another program's file."""
        return self._db.execute(
            "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_master) "
            "FROM pragma_application_id() AS a, pragma_user_version() AS v"
        ).fetchone()

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
                raise StoreError(
                    f"{self.path}: cannot write to the database ({error}): give yourself write "
                    "permission on it and its directory, or pass --db with another path"
                ) from None
            if "locked" in str(error) or "busy" in str(error):
                raise StoreError(
                    f"{self.path}: the database stayed locked by another process for "
                    f"{BUSY_TIMEOUT_MS / 1000:g} s; try again"
                ) from None
            raise StoreError(f"{self.path}: cannot use the database ({error}); it was left untouched") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{self.path}: not a usable perflab database ({error}); it was left "
                "untouched: restore it from a backup or pass --db with another path"
            ) from None

    def save(self, result: RunResult, source: str = "run") -> int:
        """Store one run (its full JSON and indexed columns) in one transaction; return its id."""
        meta = result.metadata
        revision = meta.get("git") or {}
        machine = meta.get("machine") or {}
        python = meta.get("python") or {}
        commit = revision.get("commit")
        row = {
            "benchmark": result.benchmark,
            "file": result.file,
            "source": source,
            # An imported run is dated when it ran, not when it was imported.
            "created": (_started_at(meta) if source == "import" else None) or time.time(),
            "git_commit": commit,
            "git_branch": revision.get("branch"),
            "git_dirty": int(bool(revision.get("dirty"))) if commit else None,
            "commit_time": revision.get("commit_time")
            or (git.commit_time(Path(result.file).resolve().parent, commit) if commit else None),
            "machine_id": machine_fingerprint(machine),
            "cpu_model": machine.get("cpu_model"),
            "cpu_count": machine.get("cpu_count"),
            "os": machine.get("os"),
            "kernel": machine.get("kernel"),
            "python_id": python_fingerprint(python),
            "python_version": python.get("version"),
            "python_build": python.get("build"),
            "packages": json.dumps(meta.get("packages") or {}, sort_keys=True),
            "result": json.dumps(result.to_json()),
        }
        if revision.get("subject"):  # recorded since schema 3; NULL when unknown
            row["git_subject"] = revision["subject"]
        cells = [(c.case, c.contender, c.estimates) for c in result.cells if c.estimates is not None]
        with self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                run_id = self._db.execute(
                    f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values())
                ).lastrowid
                self._db.executemany(
                    "INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            run_id,
                            case,
                            contender,
                            e.median.value,
                            _finite_or_none(e.median.low),
                            _finite_or_none(e.median.high),
                            e.processes,
                        )
                        for case, contender, e in cells
                    ],
                )
                metrics = metric_rows({"metrics": result.metrics})
                if metrics:
                    self._db.executemany(
                        "INSERT INTO metric_values VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(run_id, *row) for row in metrics]
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        assert run_id is not None  # set by the INSERT above
        return run_id

    def find(self, result: RunResult) -> int | None:
        """The id of a stored run identical to ``result`` (the same file imported again), if any."""
        with self._errors():
            row = self._db.execute(
                "SELECT id FROM runs WHERE result = ? LIMIT 1", [json.dumps(result.to_json())]
            ).fetchone()
        return row[0] if row else None

    def runs(self, benchmark: str | None = None) -> list[StoredRun]:
        """Stored runs, oldest commit first (runs outside git by the time they were saved)."""
        where, args = ("WHERE benchmark = ?", [benchmark]) if benchmark else ("", [])
        with self._errors():
            rows = self._db.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs {where} ORDER BY coalesce(commit_time, created), created, id", args
            ).fetchall()
        return [_stored_run(row) for row in rows]

    def benchmarks(self) -> list[str]:
        with self._errors():
            return [r[0] for r in self._db.execute("SELECT DISTINCT benchmark FROM runs ORDER BY 1")]

    def measurements(self, benchmark: str, case: str | None = None, contender: str | None = None) -> list[Measurement]:
        """Every stored (case, contender) estimate of ``benchmark``, in history order."""
        return self._history("measurements", "median", benchmark, case, contender)

    def metric_measurements(
        self, benchmark: str, metric: str, case: str | None = None, contender: str | None = None
    ) -> list[Measurement]:
        """Stored ``metric`` values ('instructions' or 'memory') of ``benchmark`` in history order, as
        measurements (``median``: the value, ``low``/``high``: the smallest and largest process)."""
        return self._history("metric_values", "value", benchmark, case, contender, metric)

    def _history(
        self, table: str, value: str, benchmark: str, case: str | None, contender: str | None, metric: str | None = None
    ) -> list[Measurement]:
        """Rows of ``table`` (one of this module's, never a user string) for ``benchmark``'s runs."""
        runs = {run.id: run for run in self.runs(benchmark)}
        conditions, args = ["r.benchmark = ?"], [benchmark]
        for column, wanted in (("t.metric", metric), ("t.case_name", case), ("t.contender", contender)):
            if wanted is not None:
                conditions.append(f"{column} = ?")
                args.append(wanted)
        with self._errors():
            rows = self._db.execute(
                f"SELECT t.run_id, t.case_name, t.contender, t.{value}, t.low, t.high, t.processes "
                f"FROM {table} t JOIN runs r ON r.id = t.run_id WHERE " + " AND ".join(conditions),
                args,
            ).fetchall()
        order = {run_id: index for index, run_id in enumerate(runs)}
        rows.sort(key=lambda row: order[row[0]])
        return [Measurement(runs[row[0]], *row[1:]) for row in rows]

    def all_measurements(self) -> list[tuple]:
        """Every stored time estimate with its run's series columns, in history order: (benchmark,
        case, contender, machine_id, python_id, run_id, git_commit, git_dirty, commit_time, created,
        median, low, high, cpu_model, python_version, git_subject). One query, for an overview of every series."""
        with self._errors():
            return self._db.execute(
                "SELECT r.benchmark, m.case_name, m.contender, r.machine_id, r.python_id, r.id, r.git_commit, "
                "r.git_dirty, r.commit_time, r.created, m.median, m.low, m.high, r.cpu_model, r.python_version, r.git_subject "
                "FROM measurements m JOIN runs r ON r.id = m.run_id "
                "ORDER BY coalesce(r.commit_time, r.created), r.created, r.id"
            ).fetchall()

    def version(self) -> tuple[int, int, int]:
        """Changes whenever a run or a mark is added or removed: (runs, largest run id, marks)."""
        with self._errors():
            return self._db.execute(
                "SELECT (SELECT count(*) FROM runs), (SELECT coalesce(max(id), 0) FROM runs), "
                "(SELECT total(marked) FROM change_marks)"
            ).fetchone()

    def run(self, run_id: int) -> StoredRun | None:
        with self._errors():
            row = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", [run_id]).fetchone()
        return _stored_run(row) if row else None

    def packages(self, run_id: int) -> dict[str, str]:
        with self._errors():
            row = self._db.execute("SELECT packages FROM runs WHERE id = ?", [run_id]).fetchone()
        return json.loads(row[0]) if row else {}

    def mark_change(self, mark: ChangeMark) -> None:
        """Acknowledge or ignore a change point (replacing an earlier mark on it)."""
        if mark.status not in MARK_STATUSES:
            raise StoreError(f"{self.path}: a change point is marked {' or '.join(MARK_STATUSES)}, not {mark.status!r}")
        with self._errors():
            self._db.execute(
                "INSERT OR REPLACE INTO change_marks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    mark.benchmark,
                    mark.case,
                    mark.contender,
                    mark.machine_id,
                    mark.python_id,
                    mark.after,
                    mark.status,
                    mark.note,
                    mark.marked or time.time(),
                ],
            )

    def change_marks(self) -> list[ChangeMark]:
        with self._errors():
            rows = self._db.execute("SELECT * FROM change_marks ORDER BY marked").fetchall()
        return [ChangeMark(*row) for row in rows]

    def profiles_of_run(self, run_id: int) -> list[tuple[str, str]]:
        """(case, contender) of every profile stored with run ``run_id``."""
        with self._errors():
            return [
                tuple(row)
                for row in self._db.execute(
                    "SELECT case_name, contender FROM profiles WHERE run_id = ? ORDER BY 1, 2", [run_id]
                )
            ]

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
                self._db.execute("INSERT OR REPLACE INTO profiles VALUES (?, ?, ?, ?)", [run_id, case, contender, text])
            except sqlite3.IntegrityError:  # the foreign key: the run is not (or no longer) stored
                raise StoreError(
                    f"{self.path}: no stored run with id {run_id} to attach the profile of {case} / {contender} to"
                ) from None

    def profiled_runs(self, benchmark: str, case: str, contender: str) -> set[int]:
        """Ids of the runs of ``benchmark`` with a stored profile of (case, contender)."""
        with self._errors():
            rows = self._db.execute(
                "SELECT p.run_id FROM profiles p JOIN runs r ON r.id = p.run_id "
                "WHERE r.benchmark = ? AND p.case_name = ? AND p.contender = ?",
                [benchmark, case, contender],
            )
            return {row[0] for row in rows}

    def profile(self, run_id: int, case: str, contender: str) -> Profile | None:
        """The stored profile of (case, contender) in run ``run_id``, or None."""
        from perflab.profile.model import Profile

        with self._errors():
            row = self._db.execute(
                "SELECT profile FROM profiles WHERE run_id = ? AND case_name = ? AND contender = ?",
                [run_id, case, contender],
            ).fetchone()
        return Profile.from_json(json.loads(row[0])) if row else None


_RUN_COLUMNS = (
    "id, benchmark, created, source, git_commit, git_branch, git_dirty, commit_time, "
    "machine_id, cpu_model, python_id, python_version"
)


def _stored_run(row: tuple) -> StoredRun:
    values = list(row)
    values[6] = bool(values[6])
    return StoredRun(*values)


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def resolve_ref(benchmark_file: str | Path, ref: str) -> str | None:
    """The commit a git ref (branch, tag, hash) names in the benchmark file's repository."""
    return git.resolve_commit(Path(benchmark_file).resolve().parent, ref)
