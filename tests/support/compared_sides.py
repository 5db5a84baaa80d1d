"""A ``perflab compare --rev`` result built here: sides measured in interleaved rounds, the last
round cut short by the budget in some cells, compared as the runner compares them (every measured
round, Benjamini-Hochberg across all the run's comparisons)."""

from __future__ import annotations

import numpy as np

from perflab.analysis import estimates
from perflab.analysis.intervals import benjamini_hochberg
from perflab.results.model import EQUIVALENT, REFERENCE, CaseComparison, Cell, Equivalence, ProcessRun, RunResult

STOPPED = "stopped: the time budget ran out"


def compared_sides(
    rng: np.random.Generator,
    index: int = 0,
    sides: tuple[str, ...] = ("x", "y", "z"),
    cases: tuple[str, ...] = ("case0", "case1"),
    rounds: int = 8,
    load: float | None = None,
    benchmark: int | None = None,
) -> RunResult:
    """Sides ``sides`` (the first the reference) of one benchmark whose contender is "parse"; the
    side ``s`` of ``sides`` is a random ratio slower or faster. ``load``: the load average recorded;
    ``benchmark``: the number in the benchmark's name (default ``index``: one benchmark per result)."""
    result = RunResult(
        f"sides{index if benchmark is None else benchmark}",
        "/repo/b.py",
        sides[0],
        {"alpha": 0.05, "min_effect": 0.01, "precision": 0.01, "max_time": 10.0},
        {
            "machine": {"cpu_model": "cpu", "cpu_count": 2},
            "python": {"implementation": "CPython", "version": "3.12.0"},
            "started_at": f"2026-01-01T00:00:{index % 60:02d}+00:00",
            "command": f"perflab compare b.py --rev {' --rev '.join(sides)}",
            # No git commit: storing one asks git for its time, a process per run.
            "sides": {name: {"python": {"implementation": "CPython", "version": "3.12.0"}} for name in sides},
            "load_average_at_start": load,
            "load_average_at_end": load,
        },
        {},
        sides={
            name: {"name": name, "file": f"/w/{name}/b.py", "contender": "parse", "python": "python3", "sys_path": []}
            for name in sides
        },
    )
    for case in cases:
        base = 10.0 ** rng.uniform(-7, -3)
        levels = {
            name: base * (1.0 if k == 0 else 10.0 ** rng.choice([rng.uniform(-0.3, 0.3), 0.0]))
            for k, name in enumerate(sides)
        }
        partial = rng.random() < 0.6  # the budget cut the last round short
        for name in sides:
            cell = Cell(case, name, [ProcessRun(0, 10, [], [levels[name]] * 3, calibration=True)])
            for r in range(1, rounds + 1):
                drift = np.exp(rng.normal(0, 0.05))  # the machine's speed in this round, shared by the sides
                cut = partial and r == rounds
                count = int(rng.integers(1, 5)) if cut else 10
                values = list(levels[name] * drift * np.exp(rng.normal(0, 0.02, count)))
                cell.runs.append(ProcessRun(r, 10, [], values, error=STOPPED if cut else None))
            cell.estimates = estimates.estimate_cell(cell.process_values(), resamples=400)  # any interval will do
            result.cells.append(cell)
            result.equivalence.append(Equivalence(case, name, REFERENCE if name == sides[0] else EQUIVALENT))
    pending = []
    for cell in result.cells:
        if cell.contender != sides[0]:
            reference = result.cell(cell.case, sides[0])
            pending.append((cell, estimates.compare_paired(reference.round_values(), cell.round_values())))
    for (cell, comparison), p in zip(pending, benjamini_hochberg([c.p_value for _, c in pending])):
        verdict = estimates.verdict(comparison.ratio.value, p, 0.05, 0.01)
        result.comparisons.append(CaseComparison(cell.case, cell.contender, sides[0], comparison, p, verdict, True))
    return result
