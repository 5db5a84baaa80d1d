"""Throwaway git repositories for the tests of revisions (compare --rev, check, bisect, history)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path


def git_repository(path: Path) -> Callable[..., None]:
    """A fresh git repository at ``path`` with a test identity; returns ``git(*args)`` for it."""
    path.mkdir(parents=True, exist_ok=True)

    def git(*args) -> None:
        subprocess.run(["git", "-C", path, *args], check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    return git


def committed(path: Path, files: dict[str, str]) -> str:
    """A fresh repository at ``path`` holding ``files`` (relative path -> text), committed; its hash."""
    git = git_repository(path)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git("add", "-A")
    git("commit", "-qm", "base")
    return subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
