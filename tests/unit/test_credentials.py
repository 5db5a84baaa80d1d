"""mask_credentials: the password of every database URL in a text masked, the rest kept."""

from __future__ import annotations

import json

import pytest
from support.store_results import synthetic_result

from perflab.credentials import mask_credentials
from perflab.results.model import RunResult


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


def test_a_run_stored_before_commands_were_masked_is_read_masked(tmp_path):
    """A store written by an older perflab holds the command line as typed: every reader of a run
    (pages, --json, export, /api/runs) gets it through RunResult.from_json, which masks it."""
    result = synthetic_result(seed=1)
    result.metadata["command"] = "perflab run --db postgresql://team:s3cret@db.example/perf bench.py"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(result.to_json()))  # as an old perflab saved it: unmasked
    assert "s3cret" in path.read_text()
    loaded = RunResult.load(path)
    assert loaded.metadata["command"] == "perflab run --db postgresql://team:***@db.example/perf bench.py"
    assert "s3cret" not in json.dumps(loaded.to_json())
