"""The store in one SQLite file: one machine, no server; the default.

Safety rules, because a store collects months of measurements:
- A file that is not a perflab database (another program's SQLite file, a corrupted file, a
  database written by a newer perflab) is refused with ``StoreError`` and never written to.
- WAL journal + busy timeout: several perflab processes can write at once (readers never block
  writers; writers queue for up to ``BUSY_TIMEOUT_MS``).
- The schema version is ``PRAGMA user_version``; an upgrade runs all pending steps in one transaction.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from perflab.results.backends.common import Migration, Rows, SqlConnection, StoreError

# Identifies a perflab database in the SQLite header ("PFLB"), so foreign files are recognised.
APPLICATION_ID = 0x50464C42
BUSY_TIMEOUT_MS = 30_000


class SqliteDatabase(SqlConnection):
    integrity_errors: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)
    _db: sqlite3.Connection

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        super().__init__(str(path), connection)

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Rows:
        return self._db.execute(sql, args)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._db.executemany(sql, rows)

    def script(self, ddl: str) -> None:
        # Statements one by one (``executescript`` would commit the migration's open transaction).
        for statement in ddl.split(";"):
            if statement.strip():
                self._db.execute(statement)

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        row_id = self._db.execute(sql, args).lastrowid
        assert row_id is not None  # set by every INSERT
        return row_id

    def begin(self, write: bool) -> None:
        # BEGIN IMMEDIATE takes the write lock first: writers queue instead of failing on upgrade.
        self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    @contextmanager
    def errors(self) -> Iterator[None]:
        """SQLite's own errors on a damaged or foreign file, as one line naming the file."""
        try:
            yield
        except sqlite3.OperationalError as error:
            if "readonly" in str(error) or "read-only" in str(error):
                raise StoreError(
                    f"{self.name}: cannot write to the database ({error}): give yourself write "
                    "permission on it and its directory, or pass --db with another path"
                ) from None
            if "locked" in str(error) or "busy" in str(error):
                raise StoreError(
                    f"{self.name}: the database stayed locked by another process for "
                    f"{BUSY_TIMEOUT_MS / 1000:g} s; try again"
                ) from None
            raise StoreError(f"{self.name}: cannot use the database ({error}); it was left untouched") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{self.name}: not a usable perflab database ({error}); it was left "
                "untouched: restore it from a backup or pass --db with another path"
            ) from None

    def _identity(self) -> tuple[int, int, int]:
        """Application id, schema version and number of tables, read in one statement (one read
        transaction): read apart, another process creating the database in between would make
        a new perflab database look like another program's file."""
        return self._db.execute(
            "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_master) "
            "FROM pragma_application_id() AS a, pragma_user_version() AS v"
        ).fetchone()

    def _prepare(self, migrations: list[Migration]) -> None:
        """Check that the file is ours and current, before anything could write to it."""
        with self.errors():
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            application_id, version, tables = self._identity()
            if application_id != APPLICATION_ID and (application_id != 0 or tables):
                raise StoreError(
                    f"{self.name}: not a perflab database (another program's SQLite file); "
                    "it was left untouched: pass --db with another path"
                )
            if version > len(migrations):
                raise StoreError(
                    f"{self.name}: written by a newer perflab (schema {version}, this perflab "
                    f"reads up to {len(migrations)}); upgrade perflab. The file was left untouched"
                )
            self._use_wal()
            self._db.execute("PRAGMA foreign_keys = ON")
            if version < len(migrations):
                self._migrate(migrations)

    def _use_wal(self) -> None:
        """The WAL journal (many writers; survives a killed process), a lasting property of the
        file: set by its first opener. Converting the journal needs the file to itself, and SQLite
        answers "database is locked" at once there, without waiting out the busy timeout (seen: a
        store created by six processes at once failed about one time in twenty, after 0 s, with
        "locked for 30 s"; the same in russellromney/honker#102): so the conversion is retried
        within that timeout, and a file already in WAL takes no lock at all."""
        if self._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            return
        deadline, pause = time.monotonic() + BUSY_TIMEOUT_MS / 1000, 0.005
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(2 * pause, 0.1)

    def _migrate(self, migrations: list[Migration]) -> None:
        # Two processes creating the same database at once run the migrations once: the second
        # waits for the write lock, then sees the new version.
        self.begin(write=True)
        try:
            application_id, version, tables = self._identity()
            if application_id not in (0, APPLICATION_ID) or (application_id == 0 and tables):
                raise StoreError(f"{self.name}: not a perflab database; it was left untouched")
            for migration in migrations[version:]:
                migration(self)
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._db.execute(f"PRAGMA user_version = {len(migrations)}")
            self.commit()
        except BaseException:
            self.rollback()
            raise

    def _check_current(self, migrations: list[Migration]) -> None:
        with self.errors():
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            application_id, version, _ = self._identity()
            if application_id != APPLICATION_ID or version != len(migrations):
                raise StoreError(
                    f"{self.name}: not a perflab database at schema {len(migrations)} (found "
                    f"application id {application_id:#x}, schema {version}); open it with "
                    "this perflab once (e.g. `perflab history`) to upgrade it"
                )


# Written into a directory perflab makes for its database, as pytest writes one into its cache: the
# store is perflab's, changed by every run, and `git status` of the user's project stays clean.
GITIGNORE = "# Created by perflab automatically: its results store.\n*\n"


def _make_directory(directory: Path) -> None:
    if directory.exists():
        return
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".gitignore").write_text(GITIGNORE)


def open_sqlite(path: Path, migrations: list[Migration], create: bool, read_only: bool) -> SqliteDatabase:
    """The perflab database in ``path``, upgraded to the current schema (created when missing and
    ``create``). ``read_only``: SQLite refuses every write on the connection (the web view's reads);
    the file must exist and be at the current schema."""
    if path.is_dir():
        raise StoreError(f"{path}: is a directory, not a perflab database (pass --db FILE)")
    if not path.exists():
        if read_only or not create:
            raise StoreError(f"{path}: no perflab database here (run `perflab run` first, or pass --db)")
        try:
            _make_directory(path.parent)
        except OSError as error:  # a file where its folder should be, no permission, a full disk
            raise StoreError(f"{path}: cannot create its folder: {error.strerror or error}") from None
    try:
        if read_only:
            connection = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
        else:
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error as error:
        raise StoreError(f"{path}: cannot open the database: {error}") from None
    database = SqliteDatabase(path, connection)
    try:
        if read_only:
            database._check_current(migrations)
        else:
            database._prepare(migrations)
    except BaseException:
        connection.close()
        raise
    return database
