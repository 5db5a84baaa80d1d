"""The store's interface, the same tests on both backends: a SQLite file and a real PostgreSQL
database (a throwaway cluster, tests/support/postgres_server.py)."""

from __future__ import annotations

import pytest

from perflab.results.store import Store, StoreError


def test_an_unreachable_server_is_one_line_without_the_password():
    with pytest.raises(StoreError, match=r"^postgresql://me:\*\*\*@127\.0\.0\.1:1/x: cannot connect") as error:
        Store.open("postgresql://me:secret@127.0.0.1:1/x")
    assert "secret" not in str(error.value)
