"""Results for the store and regression-guard tests: synthetic runs, and stores of older schemas.

Synthetic results are real ``RunResult`` objects (estimated by perflab.analysis.estimates) built from
simulated process values, for tests of storage and statistics that need no timing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from perflab.analysis import estimates
from perflab.measure import metadata
from perflab.results.model import Cell, Equivalence, ProcessRun, RunResult


def synthetic_result(
    benchmark: str = "bench",
    time: float = 1e-5,
    processes: int = 6,
    seed: int = 0,
    cases: tuple[str, ...] = ("SMALL",),
    contender: str = "base",
    commit: str | None = None,
    machine: dict | None = None,
    noise: float = 0.03,
) -> RunResult:
    rng = np.random.default_rng(seed)
    result = RunResult(
        benchmark=benchmark,
        file=f"/nowhere/{benchmark}.py",
        reference=contender,
        settings={"precision": 0.01, "max_time": 1.0},
        work={},
        metadata={
            "python": {"implementation": "CPython", "version": "3.11.7", "build": "test"},
            "machine": machine or metadata.machine_info(),
            "git": {"commit": commit, "branch": "main", "dirty": False} if commit else None,
            "packages": {"numpy": np.__version__},
        },
    )
    for case in cases:
        cell = Cell(case, contender)
        for index in range(processes):
            level = time * np.exp(rng.normal(0, noise))
            cell.runs.append(ProcessRun(index, 100, [level], list(level * np.exp(rng.normal(0, noise, 10)))))
        cell.estimates = estimates.estimate_cell(cell.process_values())
        result.cells.append(cell)
        result.equivalence.append(Equivalence(case, contender, "reference"))
    return result


# What each schema version added, undone: a store written by this perflab, turned into the store an
# older perflab (schema ``version``) would have written, for the migration tests.
_ADDED_BY_VERSION = {
    6: ["DROP INDEX qualifications_by_machine", "DROP TABLE qualifications"],
    5: ["ALTER TABLE runs DROP COLUMN commit_generation", "ALTER TABLE measurements DROP COLUMN struck"],
    4: [
        "DROP INDEX runs_by_uid",
        "DROP INDEX runs_by_job",
        "DROP INDEX runs_by_machine",
        "ALTER TABLE runs DROP COLUMN uid",
        "ALTER TABLE runs DROP COLUMN job_id",
        "DROP TABLE machines",
        "DROP TABLE job_results",
        "DROP TABLE job_failures",
    ],
    3: ["DROP TABLE metric_values", "DROP TABLE change_marks", "ALTER TABLE runs DROP COLUMN git_subject"],
    2: ["DROP TABLE profiles"],
}


def downgrade(path: Path, version: int) -> None:
    """Turn the SQLite store at ``path`` (at this perflab's schema) into one at schema ``version``."""
    import sqlite3

    from perflab.results.schema import schema_version

    raw = sqlite3.connect(path)
    for step in range(schema_version(), version, -1):
        for statement in _ADDED_BY_VERSION[step]:
            raw.execute(statement)
    raw.execute(f"PRAGMA user_version = {version}")
    raw.commit()
    raw.close()
