"""A job's code on a worker: the repository cloned once into the worker's cache and the job's
commit checked out in a detached worktree (``perflab.measure.worktrees``, as ``compare --rev``
does), removed afterwards, and by the next job if the worker was killed."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
from collections.abc import Iterator
from pathlib import Path

from perflab import git
from perflab.measure.worktrees import RevisionError, checkouts


def mirror(repository: str, cache: Path, commits: list[str]) -> Path:
    """The worker's clone of ``repository`` holding ``commits``: cloned the first time, fetched
    when a commit is missing; one process at a time per clone (several workers may share a cache)."""
    cache.mkdir(parents=True, exist_ok=True)
    directory = cache / hashlib.sha256(repository.encode()).hexdigest()[:16]
    with open(cache / f"{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (directory / ".git").is_dir():
                git.clone(cache, repository, directory)
            if any(git.resolve_commit(directory, f"{commit}^{{commit}}") is None for commit in commits):
                git.run(directory, "fetch", "--quiet", "origin", "+refs/heads/*:refs/remotes/origin/*")
        except git.GitError as error:
            raise RevisionError(f"{repository}: cannot clone or fetch it ({error})") from None
    missing = [commit for commit in commits if git.resolve_commit(directory, f"{commit}^{{commit}}") is None]
    if missing:
        raise RevisionError(f"{repository}: has no commit {missing[0]} (was it pushed?)")
    return directory


@contextlib.contextmanager
def checked_out(repository: str, commit: str, benchmark: str, cache: Path, also: list[str]) -> Iterator[Path]:
    """Yield the benchmark file as it is at ``commit`` (``also``: commits a comparison needs too)."""
    clone = mirror(repository, cache, [commit, *also])
    with checkouts(clone / benchmark, [commit], from_revision=True) as found:
        yield found[commit].benchmark
