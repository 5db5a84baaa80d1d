"""Git revisions as directories: one detached worktree per revision, always removed afterwards.

``WORKTREE`` names the working tree as it is, uncommitted changes included.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from perflab import git

CURRENT = "WORKTREE"


class RevisionError(Exception):
    """A revision or the repository cannot be used; one line naming which and why."""


def repository_root(path: Path) -> Path:
    root = git.top_level(path)
    if root is None:
        raise RevisionError(f"{path}: not inside a git repository, so --rev cannot be used")
    return root


@contextlib.contextmanager
def checkouts(benchmark: Path, revisions: list[str]) -> Iterator[dict[str, Path]]:
    """Yield {revision: the benchmark file as it is at that revision}; clean up on any exit."""
    benchmark = benchmark.resolve()
    root = repository_root(benchmark)
    relative = benchmark.relative_to(root)
    commits: dict[str, str] = {}
    for revision in revisions:
        if revision != CURRENT:
            commit = git.resolve_commit(root, revision)
            if commit is None:
                raise RevisionError(f"revision {revision!r} does not exist in {root}")
            commits[revision] = commit
    remove_stale(root)
    parent = Path(tempfile.mkdtemp(prefix=_PREFIX))
    (parent / _OWNER).write_text(str(os.getpid()))
    created = []
    try:
        files = {}
        for index, revision in enumerate(revisions):
            if revision == CURRENT:
                files[revision] = benchmark
                continue
            directory = parent / f"{index}"
            try:
                git.add_worktree(root, directory, commits[revision])
            except git.GitError as error:
                raise RevisionError(f"revision {revision!r}: {error}") from None
            created.append(directory)
            files[revision] = directory / relative
            if not files[revision].exists():  # a file, or an asv suite's benchmark directory
                raise RevisionError(f"{relative} does not exist at revision {revision!r}")
        yield files
    finally:  # Ctrl-C and errors included
        for directory in created:
            git.remove_worktree(root, directory)
        shutil.rmtree(parent, ignore_errors=True)


_PREFIX = "perflab-revisions-"
_OWNER = "owner.pid"  # in the parent directory of a run's worktrees: the perflab process using them


def remove_stale(root: Path) -> None:
    """Remove the worktrees a perflab process left behind when it was killed (kill -9 cannot be
    cleaned up after): those under a perflab parent directory whose owner is no longer running."""
    for directory in git.worktrees(root):
        parent = directory.parent
        if parent.name.startswith(_PREFIX) and not _running(parent / _OWNER):
            git.remove_worktree(root, directory)
            shutil.rmtree(parent, ignore_errors=True)


def _running(owner_file: Path) -> bool:
    try:
        os.kill(int(owner_file.read_text()), 0)
    except PermissionError:  # running, as another user
        return True
    except (OSError, ValueError):
        return False
    return True


def import_roots(benchmark_file: Path) -> list[str]:
    """Where a revision's own code is imported from: its root, and its src/ for src layouts, so
    that the revision's modules win over an installed (current) copy of the project."""
    root = repository_root(benchmark_file)
    return [str(root)] + ([str(root / "src")] if (root / "src").is_dir() else [])
