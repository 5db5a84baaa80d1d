"""A directory perflab makes for its store ignores itself, as pytest's cache does: `git status` of
the user's project shows nothing new after a run (or `pytest --perflab`) stores its results."""

from __future__ import annotations

import subprocess

from support.store_results import synthetic_result

from perflab.results.store import DEFAULT_RELATIVE_PATH, Store


def _git(directory, *args) -> str:
    return subprocess.run(["git", *args], cwd=directory, capture_output=True, text=True, check=True).stdout


def test_the_store_perflab_makes_in_a_project_leaves_git_status_clean(tmp_path):
    _git(tmp_path, "init", "-q")
    with Store.open(tmp_path / DEFAULT_RELATIVE_PATH) as store:
        store.save(synthetic_result())
    assert (tmp_path / ".perflab" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert _git(tmp_path, "status", "--porcelain") == ""


def test_a_directory_that_was_there_is_left_as_it_was(tmp_path):
    with Store.open(tmp_path / "perflab.db") as store:
        store.save(synthetic_result())
    assert not (tmp_path / ".gitignore").exists()
