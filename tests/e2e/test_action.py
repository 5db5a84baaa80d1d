"""The GitHub Action (action.yml at the repository's root): its check and summary steps run as
Actions would run them (bash, the inputs substituted into the steps' variables), against a local
server with GitHub's documented comment endpoints (support/github_api.py). Its install step (pip
from PyPI) is not run here: this test's interpreter already has perflab."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from support.cli import QUICK
from support.github_api import REPOSITORY, TOKEN, serving
from support.history_shared import committed_project
from support.paths import ROOT

from perflab.render.markdown import comment_marker


def substituted(value: str, inputs: dict[str, str]) -> str:
    """``${{ inputs.NAME }}`` as Actions replaces it (the other expressions are only inputs' defaults here)."""
    return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda found: inputs[found.group(1)], value)


def test_the_action_posts_the_comment_and_writes_the_job_summary(tmp_path):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = {step["name"]: step for step in action["runs"]["steps"]}
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(benchmark="bench.py", against="HEAD", args=" ".join(QUICK), **{"github-token": TOKEN})

    repo = committed_project(tmp_path / "project")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 3, "pull_request": {"number": 3}}))
    runner_temp, step_summary, outputs = tmp_path / "runner", tmp_path / "step_summary.md", tmp_path / "outputs"
    runner_temp.mkdir()

    def step(name: str, github_api: str) -> subprocess.CompletedProcess:
        spec = steps[name]
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # this interpreter's perflab
            "PERFLAB_DB": str(tmp_path / "perflab.db"),
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_OUTPUT": str(outputs),
            "GITHUB_STEP_SUMMARY": str(step_summary),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_API_URL": github_api,
            **{key: substituted(str(value), inputs) for key, value in (spec.get("env") or {}).items()},
        }
        assert spec["shell"] == "bash" and "${{" not in spec["run"]  # inputs reach scripts as variables only
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    with serving() as github:
        checked = step("Check against the base, both measured now, interleaved", github.api)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert github.problems == []
        [comment] = github.comments[3]
    assert comment["body"].startswith(comment_marker("summing") + "\n### :white_check_mark: perflab")
    summary = (runner_temp / "perflab-summary.md").read_text()
    assert f"summary={runner_temp / 'perflab-summary.md'}" in outputs.read_text()
    assert step("Job summary", github.api).returncode == 0
    assert step_summary.read_text() == summary
