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


ASV_WORK = "def work(n):\n    return sum(i * i for i in range({n}))\n"
ASV_BENCHMARKS = """
import mylib


class TimeWork:
    params = [100]

    def time_work(self, n):
        mylib.work(n)


def time_other():
    pass
"""


def slowed_history(repo: Path, files: dict[str, str], slower: dict[str, str]) -> Path:
    """A fresh repository at ``repo`` with three commits: ``files`` (relative path -> text) as "v1",
    a commit that changes no code ("docs"), then ``slower`` written over them ("slower")."""
    git = git_repository(repo)
    for commit, written in (("v1", files), ("docs", {"README": "docs only\n"}), ("slower", slower)):
        for name, text in written.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        git("add", "-A")
        git("commit", "-qm", commit)
    return repo


def asv_project(repo: Path) -> Path:
    """A project with an asv suite (asv.conf.json, benchmarks/) whose ``work`` (the suite's
    time_work) becomes three times slower in the history of ``slowed_history``."""
    suite = {
        "asv.conf.json": '{"version": 1, "project": "demo", "benchmark_dir": "benchmarks"}',
        "benchmarks/__init__.py": "",
        "benchmarks/bench_work.py": ASV_BENCHMARKS,
        "mylib.py": ASV_WORK.format(n="n"),
    }
    return slowed_history(repo, suite, {"mylib.py": ASV_WORK.format(n="n * 3")})
