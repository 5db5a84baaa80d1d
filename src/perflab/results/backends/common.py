"""What the store needs from a database connection, whichever the backend."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

URL_SCHEMES = ("postgresql://", "postgres://")


class StoreError(Exception):
    """The database cannot be used; the message is one line naming the database and what to do."""


def is_url(location: object) -> bool:
    """A PostgreSQL connection URL (anything else names a SQLite file)."""
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


class Rows(Protocol):
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    """An open connection in autocommit mode; transactions are begun and ended explicitly."""

    name: str  # the file or the URL without its password, for messages
    integrity_errors: tuple[type[Exception], ...]  # a foreign or unique key refused a row

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Rows: ...
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...
    def script(self, ddl: str) -> None:
        """Schema statements (``;``-separated, written with SQLite's types) in the current transaction."""
        ...

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        """Run an INSERT into a table with an ``id`` key; return the new row's id."""
        ...

    def begin(self, write: bool) -> None:
        """A write transaction (writers queue) or a read snapshot (every query sees one state)."""
        ...

    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def close(self) -> None: ...
    def errors(self) -> AbstractContextManager[None]:
        """The driver's errors, as one-line ``StoreError``s naming the database."""
        ...


class SqlConnection:
    """What both backends do alike with their driver's connection: a transaction is ended and the
    connection closed by the same SQL and call; each backend adds what differs (placeholders,
    DDL types, how a transaction begins, the driver's errors)."""

    def __init__(self, name: str, connection: Any) -> None:
        self.name = name
        self._db = connection

    def commit(self) -> None:
        self._db.execute("COMMIT")

    def rollback(self) -> None:
        """Undo the open transaction. It may be gone already (SQLite rolls it back itself on a full
        disk; a connection may have died): a failure here must not hide the error that led here."""
        with contextlib.suppress(Exception):
            self._db.execute("ROLLBACK")

    def close(self) -> None:
        self._db.close()


# A migration step: upgrades a database by one schema version inside the caller's transaction.
Migration = Callable[[Database], None]
