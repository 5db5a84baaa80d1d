"""What every metric shares: which cells to measure, and running a worker under a measuring tool.

A metric runs the worker's "count" job (perflab.worker.run_count) once per (case, contender),
possibly under a tool that wraps the process (valgrind, perf stat), and turns what the tool and
the worker report into numbers per call. Timing stays with perflab.runner; a metric only adds
its numbers next to the timed ones.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from perflab.launcher import worker_environment
from perflab.results import RunResult

# Sources of run-to-run variation pinned in every counted worker: string hashing (set and dict
# layouts, hence instructions), and a fixed environment so the process starts the same way.
PINNED_ENVIRONMENT = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


class MetricUnavailable(Exception):
    """A metric's tool is missing: one line saying what to install (exit code 2, nothing measured)."""


@dataclass
class Target:
    """One measured (case, contender) and its wall time per call from the timing run."""

    case: str
    contender: str
    time_per_call: float


@dataclass
class WorkerReport:
    """What one counted worker process said: its "count" event, or why it failed."""

    count: dict[str, Any] | None = None
    error: str | None = None
    stderr: str = ""


def targets(result: RunResult) -> list[Target]:
    """Every cell that was timed, with its median time per call (cells that failed are left out)."""
    return [Target(cell.case, cell.contender, cell.estimates.median.value)
            for cell in result.cells if cell.estimates is not None]


def loops_for(time_per_call: float, native_seconds: float, most: int = 10**6) -> int:
    """Calls that take about ``native_seconds`` without any tool (at least 1)."""
    return max(1, min(most, round(native_seconds / max(time_per_call, 1e-9))))


def require(tool: str, package: str) -> str:
    """The tool's path, or MetricUnavailable naming the Debian package that provides it."""
    path = shutil.which(tool)
    if path is None:
        raise MetricUnavailable(f"{tool} not found: apt-get install {package}")
    return path


def run_counted_worker(job: dict[str, Any], timeout: float, python: str = sys.executable,
                       wrapper: list[str] = ()) -> WorkerReport:
    """Run a one-shot "count" job, with ``wrapper`` (e.g. valgrind and its options) in front."""
    environment = dict(worker_environment(python) or os.environ)
    environment.update(PINNED_ENVIRONMENT)
    try:
        process = subprocess.run([*wrapper, python, "-m", "perflab.worker"], input=json.dumps(job) + "\n",
                                 capture_output=True, text=True, timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        return WorkerReport(error=f"timed out after {timeout:g} s")
    report = WorkerReport(stderr=process.stderr)
    for line in process.stdout.splitlines():
        event = json.loads(line)
        if event["event"] == "count":
            report.count = event
        elif event["event"] == "error":
            report.error = event["message"]
    if report.error is None and (process.returncode != 0 or report.count is None):
        tail = " | ".join(process.stderr.strip().splitlines()[-3:])
        report.error = f"worker exited with code {process.returncode}" + (f": {tail}" if tail else "")
    return report


def count_job(file: str, target: Target, loops: int, warmups: int = 1, memory: bool = False) -> dict[str, Any]:
    return {"mode": "count", "file": file, "case": target.case, "contender": target.contender,
            "loops": loops, "warmups": warmups, "memory": memory}

