"""What the checks made beside the timed values mean for a run's verdicts (parent side).

The timing workers report, per process (perflab.bench.worker.timing_checks): whether the input changed
during the timed calls, whether the output after them still matched the reference's, the
process's first call on a fresh copy and the harness's floor. Here a changed input or a wrong
late output becomes the cell's equivalence status (so its speedup is invalid wherever verdicts
are shown), the first call becomes a caution beside the speedup, and the floor a warning.
"""

from __future__ import annotations

import statistics

from perflab.results.model import INVALID, MUTATES_INPUT, NOT_EQUIVALENT, Cell, Equivalence, ProcessRun, RunResult
from perflab.units import format_ratio_estimate, format_time

# A steady-state speedup this many times the first-call speedup comes from repeating one input.
REPEAT_ONLY_FACTOR = 3.0
MIN_FIRST_CALLS = 3  # processes with a timed first call on each side before judging
# A first call under this many times the cost of timing an empty call (first_call_overhead) is not
# judged. Not subtracted instead: the overhead is the timer's, but a first call of tens of
# nanoseconds also pays cold caches an empty call does not (msgspec.json.encode({}) here: 220 ns
# first, 90 ns steady, 60 ns overhead), and that part has no measure to subtract. A memo cache's
# first call does the whole operation, far above this for anything worth caching.
RESOLVABLE_FACTOR = 10.0
# The floor as a fraction of the time per call above which a ratio is mostly perflab's loop.
FLOOR_WARNING = 0.10
# ... and from which it is shown beside the time: below 1% (the smallest effect a verdict reports by
# default) it changes no reading ("(floor 7.4 ns)" beside a 92 ms command said nothing).
FLOOR_SHOWN = 0.01


def record_timing_checks(result: RunResult, cell: Cell, run: ProcessRun) -> None:
    """Turn one process's checks into the cell's equivalence status (the first finding stays)."""
    for status, finding in ((MUTATES_INPUT, run.input_changed), (NOT_EQUIVALENT, run.output_wrong)):
        if not finding:
            continue
        verdict = result.equivalence_of(cell.case, cell.contender)
        if verdict is None:
            verdict = Equivalence(cell.case, cell.contender, status)
            result.equivalence.append(verdict)
        if verdict.status in INVALID:
            return
        verdict.status, verdict.note = status, None
        verdict.difference = f"in timing (round {run.round}): {finding}"
        return


def caution(reference: Cell, cell: Cell, ratio: float) -> str | None:
    """Why the steady-state ``ratio`` (time of ``cell`` / time of ``reference``) is not what varied
    inputs see, or None.

    Each process times its first call on a fresh copy of the input before any other call. Both
    sides pay cold caches and warm-up there; a contender whose steady state gains far more than
    its first call does (REPEAT_ONLY_FACTOR) is fast because the timing loop repeats one input.
    The fastest first call of at least MIN_FIRST_CALLS processes stands for each side: one call
    is easily stretched by another process, never shortened.
    """
    firsts = _first_calls(reference, cell)
    if min(len(calls) for calls in firsts) < MIN_FIRST_CALLS or _unresolvable(cell):
        return None
    steady, first = 1 / ratio, min(firsts[0]) / min(firsts[1])
    if steady <= 1 or steady < REPEAT_ONLY_FACTOR * first:
        return None
    return (
        f"repeat-only speed: {format_ratio_estimate(ratio)} in the steady state but "
        f"{format_ratio_estimate(1 / first)} on a first call with a "
        "fresh copy of the input (a memo cache or warmed lookup answers the timing loop's repeated "
        "input); varied inputs would see about the first-call figure"
    )


def repeat_only_unchecked(reference: Cell, cell: Cell, ratio: float) -> str | None:
    """Why ``caution`` could not judge a steady-state speedup (too few processes timed a first
    call: a small --max-time; or a first call too short to resolve), or None. Said beside the
    ratio, so that a short run never passes a memo cache's speedup off as checked."""
    if ratio >= 1:
        return None
    fewest = min(len(calls) for calls in _first_calls(reference, cell))
    if fewest < MIN_FIRST_CALLS:
        return (
            "not checked for repeat-only speed (a memo cache answering the "
            f"timing loop's repeated input): first calls of {fewest} process{'es' * (fewest != 1)} on a side, "
            f"{MIN_FIRST_CALLS} needed; raise --max-time"
        )
    return _unresolvable(cell)


def _unresolvable(cell: Cell) -> str | None:
    """Why the contender's first call is unresolvable (within RESOLVABLE_FACTOR of what timing an
    empty call costs in its processes), or None. Results without the overhead are judged."""
    firsts = [run.first_call for run in cell.runs if run.first_call]
    overheads = [run.first_call_overhead for run in cell.runs if run.first_call_overhead]
    if not firsts or not overheads or min(firsts) >= RESOLVABLE_FACTOR * min(overheads):
        return None
    return (
        f"first call unresolvable at this scale: its fastest first call ({format_time(min(firsts))}) is "
        f"within {RESOLVABLE_FACTOR:g}x of timing an empty call ({format_time(min(overheads))}), so the "
        "timer and cold caches dominate it; not checked for repeat-only speed"
    )


def _first_calls(reference: Cell, cell: Cell) -> list[list[float]]:
    """The first-call times of every process of each side (perflab.bench.worker.timing_checks)."""
    return [[r.first_call for r in c.runs if r.first_call] for c in (reference, cell)]


def floor_of(cell: Cell) -> float | None:
    """The harness's loop-and-call floor in this cell's workers, s/call (median over processes)."""
    return _median([run.floor for run in cell.runs if run.floor])


def shown_floor(cell: Cell) -> float | None:
    """The floor, where it matters: when it is at least FLOOR_SHOWN of the cell's time per call."""
    floor = floor_of(cell)
    if floor is None or cell.estimates is None or floor < FLOOR_SHOWN * cell.estimates.median.value:
        return None
    return floor


def floor_warning(cell: Cell) -> str | None:
    """A warning when the floor is more than FLOOR_WARNING of the cell's time per call.

    perflab flags such ratios rather than subtracting the floor: the floor is the cost of calling
    the cheapest built-in, not of calling this contender, so a difference would not be the time
    of the operation either (docs/equivalence.md)."""
    floor = floor_of(cell)
    if floor is None or cell.estimates is None:
        return None
    fraction = floor / cell.estimates.median.value
    if fraction <= FLOOR_WARNING:
        return None
    return (
        f"harness floor {floor * 1e9:.1f} ns/call is {fraction:.0%} of its time per call: "
        "ratios involving it are partly perflab's loop, not the operation"
    )


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None
