"""mask_credentials: the password of every database URL in a text masked, the rest kept."""

from __future__ import annotations

import pytest

from perflab.credentials import mask_credentials


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgresql://u:pw@h/db", "postgresql://u:***@h/db"),
        ("postgres://u:p@ss@h:5432/db", "postgres://u:***@h:5432/db"),  # an '@' not percent-encoded
        ("perflab run --db=postgresql://u:p%40w@[::1]/db b.py", "perflab run --db=postgresql://u:***@[::1]/db b.py"),
        ("perflab run --db postgresql://u:pw@h", "perflab run --db postgresql://u:***@h"),
        ("postgresql://h/db?sslmode=require&PASSWORD=pw", "postgresql://h/db?sslmode=require&PASSWORD=***"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("http://[::1]:8000/ and a:b@c", "http://[::1]:8000/ and a:b@c"),
    ],
)
def test_only_the_password_is_masked(text, masked):
    assert mask_credentials(text) == masked
