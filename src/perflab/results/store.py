"""The results store: every run kept in one SQLite file (or a team's PostgreSQL database), for
history, change points and the CI gate.

Each run is saved whole (the ``RunResult`` JSON, so nothing measured is ever thrown away) next to
indexed columns that history queries need: benchmark, git commit/branch/dirty, machine and
interpreter fingerprints, and one row per (case, contender) with its median and 95% interval.

Safety rules, because a store collects months of measurements:
- A database that is not perflab's (another program's file or tables, a corrupted file, a
  database written by a newer perflab) is refused with ``StoreError`` and never written to.
- A run is saved in one transaction: a process killed mid-write leaves the previous state.
- Several perflab processes can write at once (``perflab.results.backends`` says how, per backend).
- The schema is versioned and upgraded by the migrations in ``perflab.results.schema``, in code, the same on
  both backends; an upgrade runs all pending steps in one transaction.

Profiles taken by ``perflab run --profile`` are kept too (schema version 2), one per (run, case,
contender), as the same JSON ``perflab profile --json`` writes. Schema version 3 indexes the other
metrics (instructions and memory per call) in ``metric_values`` so that a history of them reads
no run's JSON, and keeps the marks (acknowledged / ignored) that people put on change points.
Schema version 4 gives every run a stable id (``uid``, the hash of its result), so that merging
stores never stores a run twice, lists the machines that ran them, by fingerprint, and keeps the
outcome of queued jobs (``perflab submit``): one result per job, and why attempts failed.
Schema version 5 orders histories by commit generation and marks the cells whose speed does not
count; version 6 keeps what each machine can detect (``perflab qualify``), apart from the runs: an
A/A run is no point of a benchmark's history.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from perflab import git
from perflab.results import imported_numbers
from perflab.results.backends.common import Database, StoreError, is_url
from perflab.results.backends.postgres import open_postgres
from perflab.results.backends.sqlite import open_sqlite
from perflab.results.fingerprints import machine_fingerprint, python_fingerprint
from perflab.results.schema import MIGRATIONS, metric_rows, record_machine, run_uid, struck_rows

if TYPE_CHECKING:  # imported when needed: results pulls in scipy, and the CLI imports this module
    from perflab.analysis.detectable import Qualification
    from perflab.profile.model import Profile
    from perflab.results.model import RunResult

ENV_VAR = "PERFLAB_DB"
DEFAULT_RELATIVE_PATH = Path(".perflab") / "perflab.db"
__all__ = ["StoreError", "Store"]  # StoreError is the backends', raised for both

# A stored run's ``source``: 'run', 'check', 'import', 'job' or 'pytest'. perflab check's runs (its
# baseline revision and the working tree, measured now side by side for the gate) are kept, but are
# no points of a history: a baseline commit measured today would sit beside that commit's own
# earlier runs, and a working tree is no commit. Histories and the dashboard leave them out, and
# say how many.
CHECK_SOURCE = "check"


# A stored median a history may use: a time (imported_numbers.seconds). Runs stored before perflab
# checked it (an impossible import) are left out of histories and the web view, not crash them.
def _a_time(column: str) -> str:
    return f"{column} > 0 AND {column} <= {imported_numbers.MAX_SECONDS!r}"


# Where a store is: a SQLite file, or a PostgreSQL URL (postgresql://user@host/dbname).
Location = Path | str


def _started_at(metadata: dict) -> float | None:
    """When a run started (its metadata's ISO time), in seconds since the epoch; None if unknown."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(str(metadata.get("started_at"))).timestamp()
    except ValueError:
        return None


def location(text: str) -> Location:
    """A ``--db`` or ``$PERFLAB_DB`` value: a PostgreSQL URL as given, anything else a file path."""
    return text if is_url(text) else Path(text)


def default_path(benchmark_file: str | Path | None = None) -> Location:
    """``$PERFLAB_DB``, else .perflab/perflab.db at the git top level of the benchmark file (or of the
    current directory when there is no file), else in the current directory."""
    if os.environ.get(ENV_VAR):
        return location(os.environ[ENV_VAR])
    start = Path(benchmark_file).resolve().parent if benchmark_file is not None else Path.cwd()
    return (git.top_level(start) or Path.cwd()) / DEFAULT_RELATIVE_PATH


class ImpossibleRun(StoreError):
    """A stored run holds a number no measurement gives (stored before perflab checked them)."""


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
class Machine:
    """A machine that ran stored runs, by fingerprint (its host name is the last one seen)."""

    machine_id: str
    cpu_model: str | None
    cpu_count: int | None
    os: str | None
    kernel: str | None
    hostname: str | None
    last_seen: float


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
    """An open perflab database. Use ``Store.open(location)``; close it (or use ``with``)."""

    def __init__(self, database: Database) -> None:
        self.path = database.name  # the file, or the URL without its password
        self._db = database

    @classmethod
    def open(cls, where: Location, create: bool = True, read_only: bool = False) -> Store:
        """The store in a SQLite file or at a PostgreSQL URL, upgraded to the current schema.
        ``read_only``: every write is refused (the web view's reads); the store must exist and be
        at the current schema (open it once writable to upgrade it)."""
        if is_url(where):
            return cls(open_postgres(str(where), MIGRATIONS, create, read_only))
        return cls(open_sqlite(Path(where), MIGRATIONS, create, read_only))

    @contextmanager
    def snapshot(self) -> Iterator[Store]:
        """One read transaction: every query inside sees the same state, whatever is written meanwhile."""
        with self._errors():
            self._db.begin(write=False)
        try:
            yield self
        finally:
            self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _errors(self) -> AbstractContextManager[None]:
        return self._db.errors()

    def save(self, result: RunResult, source: str = "run", uid: str | None = None, created: float | None = None) -> int:
        """Store one run (its full JSON and indexed columns) in one transaction; return its id.
        ``uid``: the run's stable id where it was first stored (default: the hash of its result);
        ``created``: when it was first stored. A run stored already is refused with ``StoreError``."""
        with self._writing():
            return self._insert(result, source, uid, created, None)

    def save_job(self, job: int, results: list[RunResult], host: str) -> list[int]:
        """Store the runs that queued job ``job`` measured (one per side of a comparison of
        revisions), with the job's result row, in one transaction: a job has at most one result,
        a second is refused with ``StoreError`` and nothing of it is stored."""
        with self._writing():
            self._db.execute("INSERT INTO job_results VALUES (?, ?, ?)", [job, host, time.time()])
            return [self._insert(result, "job", None, None, job) for result in results]

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One write transaction, rolled back on any error; a duplicate run or job result is a StoreError."""
        with self._errors():
            self._db.begin(write=True)
            try:
                yield
                self._db.commit()
            except self._db.integrity_errors:
                self._db.rollback()
                raise StoreError(
                    f"{self.path}: this run (or this job's result) is stored already; not stored again"
                ) from None
            except BaseException:
                self._db.rollback()
                raise

    def _insert(self, result: RunResult, source: str, uid: str | None, created: float | None, job: int | None) -> int:
        meta = result.metadata
        data = result.to_json(shown=False)  # what perflab says of it is derived when it is read
        # An imported run is dated when it ran, not when it was imported.
        when = created or (_started_at(meta) if source == "import" else None) or time.time()
        revision = meta.get("git") or {}
        machine = meta.get("machine") or {}
        python = meta.get("python") or {}
        commit = revision.get("commit")
        row = {
            "benchmark": result.benchmark,
            "file": result.file,
            "source": source,
            "created": when,
            "git_commit": commit,
            "git_branch": revision.get("branch"),
            "git_dirty": int(bool(revision.get("dirty"))) if commit else None,
            "commit_time": revision.get("commit_time")
            or (git.commit_time(Path(result.file).resolve().parent, commit) if commit else None),
            "commit_generation": revision.get("generation")
            or (git.generation(Path(result.file).resolve().parent, commit) if commit else None),
            "machine_id": machine_fingerprint(machine),
            "cpu_model": machine.get("cpu_model"),
            "cpu_count": machine.get("cpu_count"),
            "os": machine.get("os"),
            "kernel": machine.get("kernel"),
            "python_id": python_fingerprint(python),
            "python_version": python.get("version"),
            "python_build": python.get("build"),
            "packages": json.dumps(meta.get("packages") or {}, sort_keys=True),
            "result": json.dumps(data),
            "uid": uid or run_uid(data),
            "job_id": job,
        }
        if revision.get("subject"):  # recorded since schema 3; NULL when unknown
            row["git_subject"] = revision["subject"]
        try:
            imported_numbers.check_run(result)
        except imported_numbers.ImpossibleNumber as error:
            raise StoreError(f"{self.path}: {error}; not stored") from None
        cells = [(c.case, c.contender, c.estimates) for c in result.cells if c.estimates is not None]
        struck = {(case, contender): verdict for case, contender, verdict in struck_rows(result)}
        run_id = self._db.insert(
            f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values())
        )
        self._db.executemany(
            "INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    case,
                    contender,
                    e.median.value,
                    _finite_or_none(e.median.low),
                    _finite_or_none(e.median.high),
                    e.processes,
                    struck.get((case, contender)),
                )
                for case, contender, e in cells
            ],
        )
        metrics = metric_rows({"metrics": result.metrics})
        if metrics:
            self._db.executemany(
                "INSERT INTO metric_values VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(run_id, *row) for row in metrics]
            )
        record_machine(self._db, machine, when)
        return run_id

    def find(self, result: RunResult) -> int | None:
        """The id of a stored run identical to ``result`` (the same file imported again), if any."""
        return self.find_uid(run_uid(result.to_json(shown=False)))

    def find_uid(self, uid: str) -> int | None:
        """The id of the stored run whose stable id is ``uid``, if any."""
        with self._errors():
            row = self._db.execute("SELECT id FROM runs WHERE uid = ?", [uid]).fetchone()
        return row[0] if row else None

    def runs_of_job(self, job: int) -> list[int] | None:
        """The ids of the runs stored as the result of queued job ``job``; None when it has no result."""
        with self._errors():
            if self._db.execute("SELECT 1 FROM job_results WHERE job_id = ?", [job]).fetchone() is None:
                return None
            return [row[0] for row in self._db.execute("SELECT id FROM runs WHERE job_id = ? ORDER BY id", [job])]

    def job_results(self) -> dict[int, tuple[str, list[int]]]:
        """Every job with a stored result: job id -> (the host that ran it, its run ids)."""
        with self._errors():
            hosts = dict(self._db.execute("SELECT job_id, host FROM job_results").fetchall())
            runs: dict[int, list[int]] = {job: [] for job in hosts}
            for job, run_id in self._db.execute("SELECT job_id, id FROM runs WHERE job_id IS NOT NULL ORDER BY id"):
                runs.setdefault(job, []).append(run_id)
        return {job: (hosts[job], runs[job]) for job in hosts}

    def record_job_failure(self, job: int, attempt: int, host: str, reason: str) -> None:
        """Why an attempt at queued job ``job`` failed (``perflab jobs`` shows the latest reason)."""
        with self._errors():
            self._db.execute(
                "INSERT INTO job_failures VALUES (?, ?, ?, ?, ?)", [job, attempt, host, reason, time.time()]
            )

    def job_failures(self) -> dict[int, str]:
        """The latest failure reason of every job that failed at least once, with its host."""
        with self._errors():
            rows = self._db.execute("SELECT job_id, host, reason FROM job_failures ORDER BY failed").fetchall()
        return {job: f"{reason} (on {host})" for job, host, reason in rows}

    def uids(self) -> dict[int, tuple[str, float]]:
        """Every stored run's (stable id, time stored), by run id: what merging stores copies."""
        with self._errors():
            return {row[0]: (row[1], row[2]) for row in self._db.execute("SELECT id, uid, created FROM runs")}

    def runs(self, benchmark: str | None = None) -> list[StoredRun]:
        """Stored runs in history order (``history_order``)."""
        where, args = ("WHERE benchmark = ?", [benchmark]) if benchmark else ("", [])
        with self._errors():
            rows = self._db.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs {where} ORDER BY {history_order('')}", args
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
                f"FROM {table} t JOIN runs r ON r.id = t.run_id WHERE "
                + " AND ".join(conditions)
                + (f" AND {_a_time('t.median')}" if table == "measurements" else ""),
                args,
            ).fetchall()
        order = {run_id: index for index, run_id in enumerate(runs)}
        rows.sort(key=lambda row: order[row[0]])
        return [Measurement(runs[row[0]], *row[1:]) for row in rows]

    def all_measurements(self) -> list[tuple]:
        """Every stored time estimate with its run's series columns, in history order: (benchmark,
        case, contender, machine_id, python_id, run_id, git_commit, git_dirty, commit_time, created,
        median, low, high, cpu_model, python_version, git_subject, source, struck). One query, for an
        overview of every series."""
        with self._errors():
            return self._db.execute(
                "SELECT r.benchmark, m.case_name, m.contender, r.machine_id, r.python_id, r.id, r.git_commit, "
                "r.git_dirty, r.commit_time, r.created, m.median, m.low, m.high, r.cpu_model, r.python_version, "
                "r.git_subject, r.source, m.struck "
                f"FROM measurements m JOIN runs r ON r.id = m.run_id WHERE {_a_time('m.median')} "
                f"ORDER BY {history_order('r.')}"
            ).fetchall()

    def version(self) -> tuple[int, int, int]:
        """Changes whenever a run or a mark is added or removed: (runs, largest run id, marks)."""
        with self._errors():
            return self._db.execute(
                "SELECT (SELECT count(*) FROM runs), (SELECT coalesce(max(id), 0) FROM runs), "
                "(SELECT coalesce(sum(marked), 0.0) FROM change_marks)"
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
                "INSERT INTO change_marks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (benchmark, case_name, contender, machine_id, python_id, after_label) "
                "DO UPDATE SET status = excluded.status, note = excluded.note, marked = excluded.marked",
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

    def machines(self) -> list[Machine]:
        """The machines that ran stored runs, most recently seen first."""
        with self._errors():
            rows = self._db.execute("SELECT * FROM machines ORDER BY last_seen DESC, machine_id").fetchall()
        return [Machine(*row) for row in rows]

    def change_marks(self) -> list[ChangeMark]:
        with self._errors():
            rows = self._db.execute("SELECT * FROM change_marks ORDER BY marked").fetchall()
        return [ChangeMark(*row) for row in rows]

    def save_qualification(self, qualification: Qualification, runs: list[RunResult]) -> None:
        """Keep what this machine can detect on a benchmark, with the A/A runs it comes from."""
        row = [
            qualification.benchmark,
            machine_fingerprint(qualification.machine),
            qualification.created or time.time(),
            json.dumps(qualification.to_json()),
            json.dumps([run.to_json(shown=False) for run in runs]),
        ]
        with self._writing():
            self._db.insert(
                "INSERT INTO qualifications (benchmark, machine_id, created, qualification, run) VALUES (?, ?, ?, ?, ?)",
                row,
            )

    def qualification(self, benchmark: str, machine: dict) -> Qualification | None:
        """The latest qualification of ``benchmark`` on the machine of ``machine`` (a run's metadata), if any."""
        from perflab.analysis.detectable import Qualification

        with self._errors():
            row = self._db.execute(
                "SELECT qualification, created FROM qualifications WHERE benchmark = ? AND machine_id = ? "
                "ORDER BY created DESC, id DESC",
                [benchmark, machine_fingerprint(machine)],
            ).fetchone()
        return Qualification.from_json(json.loads(row[0]), row[1]) if row else None

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
        try:
            return imported_numbers.check_run(RunResult.from_json(json.loads(row[0])))
        except imported_numbers.ImpossibleNumber as error:  # stored before perflab checked what it stores
            raise ImpossibleRun(f"{self.path}: run {run_id} cannot be used: {error}") from None

    def save_profile(self, run_id: int, case: str, contender: str, profile: Profile) -> None:
        """Keep the profile of one (case, contender) of a stored run (replacing an earlier one)."""
        text = json.dumps(profile.to_json())
        with self._errors():
            try:
                self._db.execute(
                    "INSERT INTO profiles VALUES (?, ?, ?, ?) ON CONFLICT (run_id, case_name, contender) "
                    "DO UPDATE SET profile = excluded.profile",
                    [run_id, case, contender, text],
                )
            except self._db.integrity_errors:  # the foreign key: the run is not (or no longer) stored
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


def history_order(prefix: str) -> str:
    """The ORDER BY of histories, for the runs table's columns under ``prefix`` ('' or 'r.'): by
    commit time, and commits of one second by their generation (git's graph: a parent before its
    children, what a rebase or a scripted series needs); runs outside git by the time they were
    saved, and runs of one commit too. Commit times follow the graph (git writes a child's after
    its parent's) unless a clock was set back."""
    p = prefix
    return f"coalesce({p}commit_time, {p}created), coalesce({p}commit_generation, 0), {p}created, {p}id"


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
