"""Worktrees of one repository are added and removed by one perflab process at a time: another
process's `git worktree prune` could delete the admin folder `git worktree add` had just made
(three queue workers sharing one clone failed a job with "could not open ... for writing")."""

from __future__ import annotations

import fcntl
import subprocess
import threading

from perflab import git


def test_adding_a_worktree_waits_while_another_process_holds_the_repositorys_worktrees(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for command in (
        ["init", "-q"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"],
    ):
        subprocess.run(["git", "-C", str(repo), *command], check=True)
    commit = git.run(repo, "rev-parse", "HEAD")
    with open(repo / ".git" / "perflab-worktrees.lock", "w") as held:  # as another process holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        adding = threading.Thread(target=git.add_worktree, args=(repo, tmp_path / "tree", commit))
        adding.start()
        adding.join(1.0)  # unlocked, an add takes ~50 ms
        assert adding.is_alive() and not (tmp_path / "tree").exists()
    adding.join(60)
    assert (tmp_path / "tree" / ".git").exists()
    git.remove_worktree(repo, tmp_path / "tree")
    assert not (tmp_path / "tree").exists() and git.worktrees(repo) == [repo]
