"""Every git command perflab runs, in one place, failing the same way everywhere.

A user's value never reaches git where it could be read as an option: a revision name (``--rev``,
``--against``, ``--good``/``--bad``) is resolved first with ``rev-parse --verify --end-of-options``
to a commit hash, and only hashes are passed on; a repository to clone (a job's ``--repo``) follows
``--end-of-options`` too, so ``--upload-pack=...`` is a repository that does not exist.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

TIMEOUT = 120.0  # seconds for one git command (a worktree checkout of a large repository included)


class GitError(Exception):
    """git failed, or is not installed: one line, git's own last word."""


def run(directory: str | Path, *args: str, environment: dict[str, str] | None = None) -> str:
    """Run ``git -C directory ARGS``; its standard output, stripped."""
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=TIMEOUT, env=environment
        )
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took more than {TIMEOUT:g} s") from None
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise GitError(said[-1] if said else f"git {args[0]} failed")
    return done.stdout.strip()


def answer(directory: str | Path, *args: str) -> str | None:
    """Like ``run``, for optional facts: None where git fails or has nothing to say."""
    try:
        return run(directory, *args) or None
    except GitError:
        return None


def top_level(path: str | Path) -> Path | None:
    """The work tree holding ``path`` (a directory, or a file's directory); None outside git. A
    path not checked out (a worker's clone has no files) is held by its nearest existing folder's."""
    path = Path(path).resolve()
    folder = path if path.is_dir() else path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    found = answer(folder, "rev-parse", "--show-toplevel")
    return Path(found) if found else None


def resolve_commit(directory: str | Path, revision: str) -> str | None:
    """The commit hash a revision (branch, tag, hash, ``HEAD~3``) names; None if it names none."""
    return answer(directory, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")


def head(directory: str | Path) -> dict[str, object] | None:
    """Commit, branch, dirty flag, the commit's subject (shown beside it in histories), its time
    and generation (which order histories) of the repository holding ``directory``; None outside git.
    Every measuring verb asks: four git processes, each giving what it can (the helpers below ask one fact each)."""
    facts = answer(directory, "rev-parse", "--is-shallow-repository", "HEAD", "--abbrev-ref", "HEAD")
    if facts is None:
        return None
    shallow, commit, branch = facts.splitlines()
    time, _, title = (answer(directory, "show", "-s", "--format=%ct %s", commit) or "").partition(" ")
    return {
        "commit": commit,
        "branch": branch,
        "dirty": bool(answer(directory, "status", "--porcelain", "--untracked-files=no")),
        "subject": title.strip(),
        "commit_time": float(time) if time else None,
        "generation": _commit_count(directory, commit) if shallow == "false" else None,
    }


def commit_time(directory: str | Path, commit: str) -> float | None:
    """Committer time of a commit (hash), in seconds since the epoch."""
    text = answer(directory, "show", "-s", "--format=%ct", commit)
    return float(text) if text else None


def generation(directory: str | Path, commit: str) -> int | None:
    """How many commits a commit (hash) has in its history, itself included: larger in each of its
    descendants, so it orders commits made in one second (a rebase, a scripted series) as git's
    graph does. None in a shallow clone, which does not hold the whole history."""
    if answer(directory, "rev-parse", "--is-shallow-repository") != "false":
        return None
    return _commit_count(directory, commit)


def _commit_count(directory: str | Path, commit: str) -> int | None:
    text = answer(directory, "rev-list", "--count", commit)
    return int(text) if text else None


def subject(directory: str | Path, commit: str) -> str:
    """The first line of a commit's message."""
    return answer(directory, "log", "-1", "--format=%s", commit) or ""


def commits_between(directory: str | Path, good: str, bad: str) -> list[str]:
    """Commits after ``good`` up to and including ``bad`` (both hashes) on the ancestry path,
    oldest first."""
    return run(directory, "rev-list", "--reverse", "--ancestry-path", f"{good}..{bad}").split()


def clone(directory: str | Path, repository: str, destination: str | Path) -> None:
    """A clone of ``repository`` (a path or URL a user gave) at ``destination``, no files checked out."""
    run(directory, "clone", "--quiet", "--no-checkout", "--end-of-options", repository, str(destination))


def add_worktree(root: str | Path, directory: str | Path, commit: str) -> None:
    """A detached worktree of ``commit`` (a hash) at ``directory``."""
    with worktrees_locked(root):
        run(root, "worktree", "add", "--detach", "--quiet", str(directory), commit)


@contextlib.contextmanager
def worktrees_locked(root: str | Path) -> Iterator[None]:
    """One perflab process at a time adding or removing worktrees of a repository. Another's
    ``git worktree prune`` can delete the admin folder ``git worktree add`` has just made, before
    it wrote its first file ("could not open '.git/worktrees/0/locked' for writing": three queue
    workers sharing one clone, under load)."""
    import fcntl  # (POSIX, as the queue's clone lock; imported here so that git.py imports anywhere)

    common = answer(root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if common is None:  # not a repository: git itself will say so
        yield
        return
    with open(Path(common) / "perflab-worktrees.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def worktrees(root: str | Path) -> list[Path]:
    """The directories of every worktree registered in the repository at ``root``."""
    listing = answer(root, "worktree", "list", "--porcelain") or ""
    return [Path(line.removeprefix("worktree ")) for line in listing.splitlines() if line.startswith("worktree ")]


def remove_worktree(root: str | Path, directory: str | Path) -> None:
    """Remove a worktree (even with changes in it) and forget any whose directory is gone."""
    with worktrees_locked(root):
        answer(root, "worktree", "remove", "--force", str(directory))
        answer(root, "worktree", "prune")


# perflab's own results store (.perflab/ at the top level, changed by every run) is no change of the
# project's: left out of the working tree's hash and of the files a change touched.
_NOT_THE_STORE = ":(top,exclude).perflab"


def changed_files(root: str | Path, commit: str) -> list[str]:
    """The files (relative to ``root``) that differ between ``commit`` and the working tree:
    committed, staged and unstaged changes, deletions, and new files git does not ignore."""
    tracked = run(root, "diff", "--name-only", "--no-renames", "-z", commit, "--", _NOT_THE_STORE)
    untracked = run(root, "ls-files", "--others", "--exclude-standard", "-z", "--", _NOT_THE_STORE)
    return sorted({name for name in (tracked + "\0" + untracked).split("\0") if name})


def file_at(root: str | Path, commit: str, path: str) -> str | None:
    """The text of ``path`` (relative to ``root``) at ``commit``; None where it does not exist."""
    return answer(root, "show", f"{commit}:{path}")


def resolve_ref(benchmark_file: str | Path, ref: str) -> str | None:
    """The commit a git ref (branch, tag, hash) names in the benchmark file's repository."""
    return resolve_commit(Path(benchmark_file).resolve().parent, ref)


def tree(directory: str | Path, commit: str) -> str:
    """The hash of a commit's source tree (a hash): the same for every commit with the same files."""
    return run(directory, "rev-parse", f"{commit}^{{tree}}")


# What an earlier build left in the working tree (`pip install .`, `setup.py build_ext --inplace`,
# imports), not ignored in a repository without a .gitignore for them: a build of the working tree
# must not find them, since a setuptools build whose objects are as new as their sources (every file
# of an exported tree has the same time) links the stale objects instead of compiling the sources.
# Untracked ones are left out; a tracked one keeps its staged version.
_BUILD_OUTPUTS = tuple(
    f":(top,exclude,glob){pattern}"
    for pattern in ("build/**", "**/*.egg-info/**", "**/__pycache__/**", "**/*.so", "**/*.pyd", "**/*.o")
)


def working_tree(directory: str | Path) -> str:
    """The hash of the working tree as it is, uncommitted changes and untracked (not ignored)
    files included, written through a copy of the index so that the user's staging is untouched.
    perflab's own results store (``.perflab/``, changed by every run) and earlier builds' outputs
    (_BUILD_OUTPUTS) are left out."""
    with tempfile.TemporaryDirectory(prefix="perflab-index-") as scratch:
        index = Path(scratch) / "index"
        # copied with its timestamp: git trusts an entry whose size and mtime match the file unless the
        # entry is as new as the index file itself ("racily clean"); a fresh mtime on the copy would
        # hide a same-size edit made within the timestamp's granularity of the last commit.
        with contextlib.suppress(FileNotFoundError):  # a repository without a commit has no index yet
            shutil.copy2(Path(directory) / run(directory, "rev-parse", "--git-path", "index"), index)
        environment = {**os.environ, "GIT_INDEX_FILE": str(index)}
        run(directory, "add", "--all", "--", ".", _NOT_THE_STORE, *_BUILD_OUTPUTS, environment=environment)
        return run(directory, "write-tree", environment=environment)


def export_tree(directory: str | Path, tree_hash: str, destination: Path) -> None:
    """The files of a tree (a hash) written under ``destination``, outside any repository."""
    destination.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(directory), "archive", "--format=tar", tree_hash], capture_output=True)
    if archive.returncode != 0:
        said = archive.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(said[-1] if said else "git archive failed")
    subprocess.run(["tar", "-x", "-C", str(destination)], input=archive.stdout, check=True, capture_output=True)
