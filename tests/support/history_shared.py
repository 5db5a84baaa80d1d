"""What the tiers of test_history.py share (split by tier from one file)."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from support.cli import VERDICT, run_perflab

BENCH = """
# {message}
import perflab

WORK = {work}

bench = perflab.Benchmark("summing")


@bench.case
def SMALL():
    return WORK


@bench.contender
def builtin_sum(n):
    return sum(range(n))
"""


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit(repo, work, message):
    (repo / "bench.py").write_text(textwrap.dedent(BENCH.format(work=work, message=message)))
    git(repo, "add", "bench.py")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """main: two commits of the same code; feature: two commits where the work is 10x larger.
    Every commit is measured with `perflab run` into the repository's default database."""
    repo = tmp_path_factory.mktemp("project")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "dev")
    env = {"PERFLAB_DB": None}  # unset: the default location, in the repository
    commits = {}
    for branch, work, message in (
        ("main", 200, "first"),
        ("main", 200, "docs"),
        ("feature", 2000, "slower"),
        ("feature", 2000, "more"),
    ):
        if branch == "feature" and git(repo, "rev-parse", "--abbrev-ref", "HEAD") != "feature":
            git(repo, "checkout", "-q", "-b", "feature")
        commits[message] = commit(repo, work, message)
        # at the stopping rule (VERDICT): these runs are the baselines of checks that must find the step
        process = run_perflab("run", "bench.py", *VERDICT, cwd=repo, env=env)
        assert process.returncode == 0, process.stderr
        assert "stored as run" in process.stderr
    return repo, commits, env


def committed_project(path):
    """A fresh git repository at ``path`` holding the benchmark in one commit (a working tree equal to it)."""
    from support.git_repos import git_repository

    git = git_repository(path)
    (path / "bench.py").write_text(textwrap.dedent(BENCH.format(work=200, message="first")))
    git("add", "bench.py")
    git("commit", "-q", "-m", "benchmark")
    return path
