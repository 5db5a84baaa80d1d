"""Git revisions as directories: one detached worktree per revision, always removed afterwards.
The benchmark is the user's file, run on each revision's code (asv's model), unless asked to be
read from each revision.

``WORKTREE`` names the working tree as it is, uncommitted changes included.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from perflab import git
from perflab.option_types import FROM_REVISION

CURRENT = "WORKTREE"


class RevisionError(Exception):
    """A revision or the repository cannot be used; one line naming which and why."""


def revisions_error(revisions: list[str], option: str) -> str | None:
    """What is wrong with the revisions ``option`` names for one comparison (fewer than two, one
    given twice), or None: ``compare --rev``'s rule, and ``pytest --perflab-rev``'s."""
    if len(revisions) < 2:
        return f"{option} needs two or more revisions, e.g. {option} main {option} HEAD"
    repeated = [revision for revision in revisions if revisions.count(revision) > 1]
    if repeated:
        return (
            f"{option} {repeated[0]} is given twice: each side must be another revision (for an A/A "
            "comparison of one commit, name it twice differently, e.g. HEAD and its hash)"
        )
    return None


def repository_root(path: Path) -> Path:
    root = git.top_level(path)
    if root is None:
        raise RevisionError(f"{path}: not inside a git repository, so --rev cannot be used")
    return root


def benchmark_repository(benchmark: Path) -> Path:
    """The repository whose revisions a benchmark is measured on: the one holding the file, else
    the current directory's (a benchmark kept outside the project, as asv keeps its suite)."""
    root = git.top_level(benchmark) or git.top_level(Path.cwd())
    if root is None:
        raise RevisionError(
            f"{benchmark}: not inside a git repository, and neither is the current directory: "
            "run perflab from inside the project whose revisions --rev names (cd PROJECT)"
        )
    return root


@dataclass(frozen=True)
class Checkout:
    """One revision's side: its source tree (imported first), and the benchmark file it runs."""

    root: Path  # a worktree, or the repository itself for WORKTREE
    benchmark: Path
    # The given file runs here, but the revision has another version of it (at the same path): a
    # benchmark that is itself the code measured would show no difference; say so.
    differs: bool = False


@contextlib.contextmanager
def checkouts(benchmark: Path, revisions: list[str], from_revision: bool = False) -> Iterator[dict[str, Checkout]]:
    """Yield {revision: its checkout}; clean up on any exit. The benchmark is the given file (from
    the working tree, untracked or outside the repository alike) run against each revision's
    code, as asv does; ``from_revision``: the file as it is at each revision, at the same path."""
    benchmark = benchmark.resolve()
    root = benchmark_repository(benchmark)
    relative = _inside(benchmark, root) if from_revision else None
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
        found = {}
        for index, revision in enumerate(revisions):
            if revision == CURRENT:
                found[revision] = Checkout(root, benchmark)
                continue
            directory = parent / f"{index}"
            try:
                git.add_worktree(root, directory, commits[revision])
            except git.GitError as error:
                raise RevisionError(f"revision {revision!r}: {error}") from None
            created.append(directory)
            if relative is None:
                found[revision] = Checkout(directory, benchmark, differs_at(root, commits[revision], benchmark))
            else:
                found[revision] = Checkout(directory, directory / relative)
            if not found[revision].benchmark.exists():  # a file, or an asv suite's benchmark directory
                raise RevisionError(
                    f"{relative} does not exist at revision {revision!r} ({FROM_REVISION} reads the benchmark "
                    f"from each revision; without it, the working tree's {relative} runs on each revision's code)"
                )
        yield found
    finally:  # Ctrl-C and errors included
        for directory in created:
            git.remove_worktree(root, directory)
        shutil.rmtree(parent, ignore_errors=True)


def differs_at(root: Path, commit: str, benchmark: Path) -> bool:
    """Whether ``commit`` has the benchmark file at its path, with other text."""
    try:
        relative = benchmark.relative_to(root.resolve())
    except ValueError:  # outside the repository: no version of it there
        return False
    if benchmark.is_dir():
        return False
    there = git.file_at(root, commit, relative.as_posix())
    return there is not None and there.strip() != benchmark.read_text(errors="replace").strip()


def _inside(benchmark: Path, root: Path) -> Path:
    """The benchmark's path in the repository, for FROM_REVISION (which reads it at each revision)."""
    try:
        return benchmark.relative_to(root.resolve())
    except ValueError:
        raise RevisionError(
            f"{benchmark} is outside the repository {root}, so {FROM_REVISION} cannot read it at a revision; "
            "without that option this file runs on each revision's code"
        ) from None


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


def import_roots(root: Path) -> list[str]:
    """Where a revision's own code is imported from: its root, and its src/ for src layouts, so
    that the revision's modules win over an installed (current) copy of the project."""
    return [str(root)] + ([str(root / "src")] if (root / "src").is_dir() else [])


def search_path(roots: list[str], benchmark: Path) -> list[str]:
    """A side's directories to import first: its code, then the benchmark's own folder (for its
    neighbours), after the code: a working-tree file beside the project's source (bench.py at the
    repository's root) must not import the working tree's copy of the project instead of the
    revision's. (The worker does not put a folder already there first again: loading.py.)"""
    if benchmark.is_dir():  # an asv suite: imported as a package, its folder is not searched
        return roots
    return [*roots, str(benchmark.resolve().parent)]
