"""What command contenders report beside wall time, as estimates with 95% intervals.

Each value of a command contender carries its processes' user and system CPU time, their peak
RSS and, when declared, the inner-phase time the program printed (perflab.bench.commands). Estimated
like times (cluster bootstrap, the process as the unit); the inner phase is also compared with
the reference's, paired by round as wall times are, so that "parse only" and "whole program"
speedups stand side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.analysis import estimates
from perflab.bench.commands import INNER, MAX_RSS, RSS_FLOOR, SYSTEM, USER
from perflab.results.model import Cell, RunResult
from perflab.results.quantities import Interval

METRICS = (USER, SYSTEM, MAX_RSS, INNER)


@dataclass
class CellMetrics:
    case: str
    contender: str
    medians: dict[str, Interval]  # metric -> median per call with its 95% interval
    inner_ratio: Interval | None = None  # inner phase time / the reference's, paired by round
    rss_at_floor: bool = False  # the peak RSS read is the spawning worker's: the program's is at most that


def estimate(result: RunResult) -> list[CellMetrics]:
    """One entry per measured cell with extra metrics (none for Python contenders)."""
    found = []
    for cell in result.cells:
        medians = {}
        for metric in METRICS:
            processes = _processes(cell, metric)
            if processes:
                medians[metric] = _median(processes)
        if not medians:
            continue
        reference = result.cell(cell.case, result.reference)
        inner_ratio = None
        if INNER in medians and cell is not reference:
            mine, theirs = _rounds(cell, INNER), _rounds(reference, INNER)
            if mine and theirs and all(v > 0 for values in (*mine.values(), *theirs.values()) for v in values):
                inner_ratio = estimates.compare_paired(theirs, mine).ratio
        floor = max((v for values in _processes(cell, RSS_FLOOR) for v in values), default=0.0)
        at_floor = MAX_RSS in medians and medians[MAX_RSS].value <= floor
        found.append(CellMetrics(cell.case, cell.contender, medians, inner_ratio, at_floor))
    return found


def _processes(cell: Cell, metric: str) -> list[list[float]]:
    return [run.extra[metric] for run in cell.measured_runs() if run.extra.get(metric)]


def _rounds(cell: Cell, metric: str) -> dict[int, list[float]]:
    return {run.round: run.extra[metric] for run in cell.measured_runs() if run.extra.get(metric)}


def _median(processes: list[list[float]]) -> Interval:
    if not any(value for values in processes for value in values):  # e.g. no system time at all
        return Interval(0.0, 0.0, 0.0)
    if any(value <= 0 for values in processes for value in values):  # intervals are widened on a log scale
        values = sorted(value for values in processes for value in values)
        return Interval(values[len(values) // 2], values[0], values[-1])
    return estimates.estimate_cell(processes).median
