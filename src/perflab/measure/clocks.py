"""Wall time against the timed thread's CPU time: what other processes did to a comparison.

Every timed value carries both clocks and the time its thread spent runnable but waiting for a CPU
(perflab.bench.worker.timing). For single-threaded, CPU-bound code, CPU time is the load-immune
reference: it does not advance while other processes hold the CPU. Values of one common length and
interleaved rounds keep a busy machine from moving the wall-time ratio; where it moved anyway, the
two ratios disagree, and the run says so, with which to trust.
"""

from __future__ import annotations

import math
import statistics

from perflab.analysis import estimates
from perflab.results.model import Cell, ProcessRun
from perflab.results.quantities import Comparison
from perflab.units import format_percent, format_ratio

# A value whose CPU time and run-queue wait make at least this share of its wall time was spent
# running or ready to run: CPU-bound code (an operation that sleeps or blocks spends the rest).
CPU_BOUND_SHARE = 0.9


def cpu_rounds(cell: Cell) -> dict[int, list[float]]:
    """The CPU-time values of each measured process of a wall-clock run, keyed by round."""
    return {run.round: run.cpu_values for run in cell.measured_runs() if len(run.cpu_values) == len(run.values)}


def waiting_share(cell: Cell) -> float | None:
    """The share of the cell's measured wall time its thread waited for a CPU; None if not recorded."""
    runs = [run for run in cell.measured_runs() if len(run.waited) == len(run.values)]
    wall = sum(sum(run.wall_values or run.values) for run in runs)
    return sum(sum(run.waited) for run in runs) / wall if runs and wall > 0 else None


def cpu_bound(cell: Cell) -> bool:
    """Whether the cell's thread ran or was ready to run for most of every value (single-threaded
    CPU-bound code); False where CPU time or the wait was not recorded."""
    return _cpu_bound(cell.measured_runs())


def run_cpu_bound(run: ProcessRun) -> bool:
    """``cpu_bound`` of one process's values."""
    return _cpu_bound([run])


def _cpu_bound(runs: list[ProcessRun]) -> bool:
    shares = [
        (cpu + waited) / wall
        for run in runs
        for wall, cpu, waited in zip(run.wall_values or run.values, run.cpu_values or run.values, run.waited)
        if len(run.waited) == len(run.values) and wall > 0
    ]
    return bool(shares) and statistics.median(shares) >= CPU_BOUND_SHARE


def disagreement(case: str, reference: Cell, cell: Cell, wall: Comparison, min_effect: float) -> str | None:
    """The warning for a wall-time ratio that CPU time contradicts: both sides CPU-bound, the two
    95% intervals apart, and the two ratios more than ``min_effect`` apart; else None."""
    if not (cpu_bound(reference) and cpu_bound(cell)):
        return None
    cpu = estimates.compare_paired(cpu_rounds(reference), cpu_rounds(cell))
    if cpu.pairs < 2 or not math.isfinite(cpu.ratio.value):
        return None
    apart = wall.ratio.low > cpu.ratio.high or cpu.ratio.low > wall.ratio.high
    if not apart or abs(math.log(wall.ratio.value / cpu.ratio.value)) <= math.log1p(min_effect):
        return None
    waits = [
        f"{name} {format_percent(share)}"
        for name, side in ((reference.contender, reference), (cell.contender, cell))
        if (share := waiting_share(side)) is not None
    ]
    return (
        f"wall time and CPU time disagree on {case}/{cell.contender}: "
        f"{format_ratio(wall.ratio.value, wall.ratio.low, wall.ratio.high)} in wall time, "
        f"{format_ratio(cpu.ratio.value, cpu.ratio.low, cpu.ratio.high)} in the thread's CPU time; "
        "other processes took the CPU from the sides unequally"
        + (f" (waiting for a CPU: {', '.join(waits)} of the wall time)" if waits else "")
        + "; both sides are single-threaded and CPU-bound, so trust the CPU-time ratio "
        "(--clock cpu measures it), or measure again when the machine is idle"
    )
