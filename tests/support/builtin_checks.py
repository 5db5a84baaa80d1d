"""Helpers for the built-in case-study tests: run them through the real `perflab run` command.

The equivalence checks are what these tests look at, through the results file a user would get.
No check or fuzzing job may outlast --max-time, so the budget is generous and the timing after
the checks as short as the runner allows (two rounds of two short values, no warm-up values, a 50%
target): a call of a large case (json_loads' CANADA, ~0.1 s) is then made twice per worker, not four
times.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def perflab_run(tmp_path: Path, benchmark: str | Path, *options: str) -> tuple[int, dict]:
    """Exit code and equivalence verdicts {(case, contender): entry} of `perflab run ...`."""
    output = tmp_path / "result.json"
    output.unlink(missing_ok=True)
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "perflab",
            "run",
            str(benchmark),
            *options,
            "--max-time",
            "300",
            "--precision",
            "50",
            "--values",
            "2",
            "--value-time",
            "0.001",
            "--warmup",
            "0",
            "--debug-rounds",
            "2",
            "--json",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert output.exists(), f"no results written: {process.stderr[-2000:]}"
    result = json.loads(output.read_text())
    return process.returncode, {(e["case"], e["contender"]): e for e in result["equivalence"]}


def with_wrong_contender(tmp_path: Path, name: str, code: str) -> Path:
    """A benchmark file that reuses built-in ``name`` (its cases, contenders and comparator, as
    ``base``) and adds the contender(s) defined in ``code``."""
    path = tmp_path / f"wrong_{name}.py"
    path.write_text(f"import perflab\nfrom perflab.builtins import {name} as base\n\nbench = base.bench\n\n{code}")
    return path
