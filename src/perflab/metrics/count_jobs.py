"""What every metric shares: which cells to measure, and running a worker under a measuring tool.

A metric runs the worker's "count" job (perflab.bench.worker.counting.run_count) once per (case, contender),
possibly under a tool that wraps the process (valgrind, perf stat), and turns what the tool and
the worker report into numbers per call. Timing stays with perflab.measure.runner; a metric only adds
its numbers next to the timed ones.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perflab.bench.protocol import count_job
from perflab.measure.launcher import worker_environment
from perflab.measure.sides import Side
from perflab.results.model import RunResult

# Sources of run-to-run variation pinned in every counted worker: string hashing (set and dict
# layouts, hence instructions), and the environment. Every variable is allocated before the
# counted region and shifts the addresses of later objects, and objects hashed by address (json's
# id()-keyed circular-reference markers) then collide differently: one more 200-character variable
# changed json.dumps's count by 0.13% (benchmarks/instruction_stability.py). So a counted worker
# keeps only these variables, and counts from different shells or CI jobs stay comparable.
PINNED_ENVIRONMENT = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "VALGRIND_LIB")
WARMUP_CALLS = 20


class MetricUnavailable(Exception):
    """A metric's tool is missing: one line saying what to install (exit code 2, nothing measured)."""


@dataclass
class Target:
    """One measured (case, side) and its wall time per call from the timing run.

    A side is a contender of the benchmark file, or the benchmark on a git revision or under an
    interpreter (perflab.measure.sides): the metric's worker runs exactly where the timed one ran."""

    case: str
    side: Side
    time_per_call: float

    @property
    def contender(self) -> str:
        """The column's name in results (a contender, a revision or an interpreter)."""
        return self.side.name

    @classmethod
    def of(
        cls, file: str, case: str, contender: str, time_per_call: float = 1e-5, python: str = sys.executable
    ) -> Target:
        """A contender of a benchmark file."""
        return cls(case, Side(contender, file, contender, python), time_per_call)


@dataclass
class WorkerReport:
    """What one counted worker process said: its "count" event, or why it failed."""

    count: dict[str, Any] | None = None
    error: str | None = None
    stderr: str = ""


def targets(result: RunResult) -> list[Target]:
    """Every cell that was timed, with its median time per call (cells that failed are left out)."""
    python = result.settings.get("python") or sys.executable
    sides = {name: Side(**side) for name, side in result.sides.items()}
    return [
        Target(
            cell.case,
            sides.get(cell.contender) or Side(cell.contender, result.file, cell.contender, python),
            cell.estimates.median.value,
        )
        for cell in result.cells
        if cell.estimates is not None
    ]


def loops_for(time_per_call: float, native_seconds: float, most: int = 10**6) -> int:
    """Calls that take about ``native_seconds`` without any tool (at least 1)."""
    return max(1, min(most, round(native_seconds / max(time_per_call, 1e-9))))


def require(tool: str, package: str) -> str:
    """The tool's path, or MetricUnavailable naming the Debian package that provides it."""
    path = shutil.which(tool)
    if path is None:
        raise MetricUnavailable(f"{tool} not found: apt-get install {package}")
    return path


def warmups_for(loops: int) -> int:
    """Calls before counting: CPython specializes a function's bytecode after it ran a few times
    (8 in 3.11), so the first calls cost more instructions than the rest; never more than the
    counted calls (a slow operation under valgrind)."""
    return max(1, min(WARMUP_CALLS, loops))


def run_counted_worker(
    target: Target,
    loops: int,
    timeout: float,
    wrapper: Sequence[str] = (),
    memory: bool = False,
    warmups: int | None = None,
) -> WorkerReport:
    """Run the worker's one-shot "count" job (perflab.bench.worker.counting.run_count) for ``target`` with
    ``loops`` calls, with ``wrapper`` (e.g. valgrind and its options) in front."""
    warmups = warmups_for(loops) if warmups is None else warmups
    side = target.side
    job = count_job(side.file, side.contender, side.sys_path, target.case, loops, warmups, memory)
    python = target.side.python
    inherited = worker_environment(python) or os.environ
    environment = {name: inherited[name] for name in KEPT_VARIABLES if name in inherited}
    environment.update(PINNED_ENVIRONMENT)
    try:
        process = subprocess.run(
            [*wrapper, python, "-m", "perflab.bench.worker"],
            input=json.dumps(job) + "\n",
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environment,
        )
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
