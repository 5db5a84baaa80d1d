"""``perflab check --comment github`` end to end: the real command line posts the pull request's
comment, and a second push updates that comment, against a local server with GitHub's documented
request and response shapes (support/github_api.py; GitHub cannot be reached from here)."""

from __future__ import annotations

import json
import os

from support.cli import QUICK, run_perflab
from support.github_api import REPOSITORY, TOKEN, serving
from support.history_shared import committed_project

from perflab.render.markdown import comment_marker


def project(tmp_path):
    repo = committed_project(tmp_path / "project")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 5, "pull_request": {"number": 5}}))
    env = {
        **os.environ,
        "PERFLAB_DB": str(tmp_path / "perflab.db"),
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "99",
    }
    return repo, env


def test_every_push_updates_the_one_comment_of_the_benchmark(tmp_path):
    repo, env = project(tmp_path)
    with serving() as github:
        env["GITHUB_API_URL"] = github.api
        for _push in range(2):  # the first push, then the next
            done = run_perflab(
                "check", "bench.py", "--against", "HEAD", *QUICK, "--comment", "github", cwd=repo, env=env
            )
            assert done.returncode == 0, done.stdout + done.stderr
            assert "pull request comment: https://github.com/octo/perf/pull/5#issuecomment-" in done.stderr
        assert github.problems == []
        assert [method for method, _ in github.requests] == ["GET", "POST", "GET", "PATCH"]
        [comment] = github.comments[5]
    body = comment["body"]
    assert body.startswith(comment_marker("summing") + "\n### :white_check_mark: perflab: no regression")
    assert "| SMALL | builtin_sum |" in body
    assert "[this workflow run: its summary and artifacts](https://github.com/octo/perf/actions/runs/99)" in body


def test_a_missing_token_is_one_line_before_anything_is_measured(tmp_path):
    repo, env = project(tmp_path)
    env["GITHUB_TOKEN"] = None  # unset, whatever the environment of the tests holds
    done = run_perflab("check", "bench.py", "--against", "HEAD", "--comment", "github", cwd=repo, env=env)
    assert done.returncode == 2 and "GITHUB_TOKEN is not set" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "perflab.db").exists()
