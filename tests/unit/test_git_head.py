"""The git facts every measuring verb records (perflab.git.head) come from four git processes, not
one per fact, and are the facts the one-fact helpers give. A repository in a temporary directory."""

from __future__ import annotations

import subprocess

from support.git_repos import committed, git_repository

from perflab import git


def test_head_asks_four_git_processes_for_what_the_one_fact_helpers_say(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    commit = committed(repo, {"bench.py": "# one\n"})
    (repo / "bench.py").write_text("# changed\n")
    started, real_run = [], subprocess.run

    def counted(command, *args, **kwargs):
        started.append(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(git.subprocess, "run", counted)
    facts = git.head(repo)
    assert len(started) == 4, started
    monkeypatch.undo()
    assert facts == {
        "commit": commit,
        "branch": git.run(repo, "rev-parse", "--abbrev-ref", "HEAD"),
        "dirty": True,
        "subject": git.subject(repo, commit),
        "commit_time": git.commit_time(repo, commit),
        "generation": git.generation(repo, commit),
    }
    assert facts["subject"] == "base" and facts["generation"] == 1


def test_head_of_a_shallow_clone_has_no_generation_and_a_repository_without_commits_has_no_head(tmp_path):
    committed(tmp_path / "repo", {"bench.py": "# one\n"})
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{tmp_path / 'repo'}", shallow], check=True)
    facts = git.head(shallow)
    assert facts is not None and facts["generation"] is None and facts["subject"] == "base"
    git_repository(tmp_path / "empty")
    assert git.head(tmp_path / "empty") is None
