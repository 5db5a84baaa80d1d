"""Git revisions as directories: one detached worktree per revision, always removed afterwards.

``WORKTREE`` names the working tree as it is, uncommitted changes included.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

CURRENT = "WORKTREE"


class RevisionError(Exception):
    """A revision or the repository cannot be used; one line naming which and why."""


def repository_root(path: Path) -> Path:
    try:
        return Path(_git(path.parent, "rev-parse", "--show-toplevel"))
    except RevisionError:
        raise RevisionError(f"{path}: not inside a git repository, so --rev cannot be used") from None


@contextlib.contextmanager
def checkouts(benchmark: Path, revisions: list[str]) -> Iterator[dict[str, Path]]:
    """Yield {revision: the benchmark file as it is at that revision}; clean up on any exit."""
    benchmark = benchmark.resolve()
    root = repository_root(benchmark)
    relative = benchmark.relative_to(root)
    for revision in revisions:
        if revision != CURRENT:
            try:
                _git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
            except RevisionError:
                raise RevisionError(f"revision {revision!r} does not exist in {root}") from None
    parent = Path(tempfile.mkdtemp(prefix="perflab-revisions-"))
    created = []
    try:
        files = {}
        for index, revision in enumerate(revisions):
            if revision == CURRENT:
                files[revision] = benchmark
                continue
            directory = parent / f"{index}"
            _git(root, "worktree", "add", "--detach", "--quiet", str(directory), revision)
            created.append(directory)
            files[revision] = directory / relative
            if not files[revision].is_file():
                raise RevisionError(f"{relative} does not exist at revision {revision!r}")
        yield files
    finally:  # Ctrl-C and errors included
        for directory in created:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(directory)],
                           capture_output=True)
        subprocess.run(["git", "-C", str(root), "worktree", "prune"], capture_output=True)
        shutil.rmtree(parent, ignore_errors=True)


def import_roots(benchmark_file: Path) -> list[str]:
    """Where a revision's own code is imported from: its root, and its src/ for src layouts, so
    that the revision's modules win over an installed (current) copy of the project."""
    root = Path(_git(benchmark_file.parent, "rev-parse", "--show-toplevel"))
    return [str(root)] + ([str(root / "src")] if (root / "src").is_dir() else [])


def _git(directory: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RevisionError(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "git failed")
    return result.stdout.strip()
