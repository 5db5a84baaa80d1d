"""How long one timed value lasts, for every side of a case at once.

Two rules, both about what a value's length must not do to the estimate:

- **One length for every side.** On a CPU shared with other processes, a value is stretched by the
  time slices that land inside it; a 5 ms value often falls between two of them and a 25 ms value
  almost never does, so the medians of two sides whose values differ in length see different shares
  of interference, and pairing adjacent values does not cancel it (seen: a 5x pair read 6.5x beside
  bursty load). So every side's loop count is sized to one common length, at least the longest
  single call of any side, and long enough that every side's whole calls come within ``MATCH`` of it.
- **A length that does not move the estimate.** Some operations cost more or less per call in
  short values than in long ones: periodic work (a garbage collection every few calls) that a
  value of one or two calls mostly misses, or per-value work inside a pyperf time function (its
  set-up, specializations undone between calls). In the calibration rounds every side gives values
  at two lengths ``LENGTH_FACTOR`` apart, alternating; where their per-call *CPU* times (immune to
  other processes, which would otherwise make long values look slower on a busy machine) differ by
  more than ``TOLERANCE`` and their noise, the longer length is checked in turn, up to
  ``MAX_VALUE_TIME``, and the result says which length was used and why.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from perflab.analysis.intervals import one_sample, t_survival
from perflab.units import format_time

LENGTH_FACTOR = 4  # the long values of a length check hold this many times the short ones' calls
TOLERANCE = 0.02  # per-call times at two lengths this close (relative) are the same estimate
ALPHA = 0.001  # the level at which two lengths are found further apart than that
# Seconds: the longest value a length check may ask for (5 ms x 4**4; the budget may allow less).
# pyperf's values last 100 ms at least, and pyperformance's unpack_sequence needed ~180 ms here.
MAX_VALUE_TIME = 1.28
MATCH = 0.1  # every side's value of whole calls comes within this (relative) of the common length
# A process gives at most this many seconds of values a round (fewer values when they are long:
# more rounds, the units of the paired interval, rather than more values in each).
PROCESS_SECONDS = 0.5
MIN_VALUES = 5
SLOW_CALL = PROCESS_SECONDS  # seconds: a call this long fills a process's values alone
# A length check may spend at most this share of --max-time on each case (fewer pairs past it).
CHECK_SHARE = 0.1
MIN_CHECK_PAIRS = 3  # fewer (short, long) pairs than this give no check


@dataclass
class LengthCheck:
    """One side's values at two lengths in one calibration round, compared by time per call."""

    contender: str
    short: float  # seconds of wall time of one short value
    long: float
    ratio: float  # time per call, long values / short values (the ratio of their medians)
    p_value: float  # of "the two lengths differ by at most TOLERANCE" (``check``'s two tests)
    pairs: int

    @property
    def moved(self) -> bool:
        return self.p_value < ALPHA


def check(
    contender: str,
    short: Sequence[tuple[float, float]],
    long: Sequence[tuple[float, float]],
    short_loops: int,
    long_loops: int,
) -> LengthCheck | None:
    """Compare the per-call (wall, measured) times of ``short`` values (``short_loops`` calls each)
    and ``long`` ones measured in turn (pair i: short value i beside long value i), by the measured
    time; None with fewer than MIN_CHECK_PAIRS usable pairs.

    The measured time is CPU time for CPU-bound code, so that a busy machine (which stretches long
    values more than short ones in wall time) does not read as a length effect. The length moved
    the estimate when the two lengths' times per call are further apart than TOLERANCE at level
    ALPHA, by either of two one-sided tests (each at ALPHA / 2): the pairs' mean log ratio (work
    done once per value shifts every pair), or the log ratio of the two medians, the estimator
    itself, with standard errors from the values' MADs (periodic work that one short value in a
    few holds leaves the short values' median below the long ones'). Noise alone (a few pairs, a
    busy machine) must not lengthen every value."""
    kept = [(s_m, l_m) for (_, s_m), (_, l_m) in zip(short, long) if s_m > 0 and l_m > 0]
    if len(kept) < MIN_CHECK_PAIRS:
        return None
    bound = math.log1p(TOLERANCE)
    logs = [math.log(l_m / s_m) for s_m, l_m in kept]
    above, below = one_sample(logs), one_sample([-x for x in logs])
    paired = min(above.p_above(bound), below.p_above(bound))
    medians = math.log(statistics.median(l_m for _, l_m in kept) / statistics.median(s_m for s_m, _ in kept))
    spread = math.hypot(*(_median_se([math.log(x) for x in side]) for side in zip(*kept)))
    by_medians = (
        t_survival((abs(medians) - bound) / spread, len(kept) - 1) if spread > 0 else float(abs(medians) <= bound)
    )
    return LengthCheck(
        contender,
        short=short_loops * statistics.median(wall for wall, _ in short),
        long=long_loops * statistics.median(wall for wall, _ in long),
        ratio=math.exp(medians),
        p_value=min(1.0, 2 * min(paired, by_medians)),
        pairs=len(kept),
    )


def _median_se(logs: Sequence[float]) -> float:
    """The standard error of the median of ``logs``: 1.2533 sd / sqrt(n), the sd as 1.4826 x MAD."""
    centre = statistics.median(logs)
    return 1.2533 * 1.4826 * statistics.median(abs(x - centre) for x in logs) / math.sqrt(len(logs))


@dataclass
class CaseLength:
    """The value length of one case: checked in calibration rounds until settled, then common to
    every side. ``length`` is in seconds of wall time; ``checks`` keeps every length check made."""

    length: float
    settled: bool = False
    checks: list[LengthCheck] = field(default_factory=list)
    unsettled: str | None = None  # why a length that moved the estimate was not lengthened further
    unchecked: str | None = None  # why the length was not checked at all

    def after_check(self, checks: Sequence[LengthCheck], affordable: Callable[[float], bool]) -> None:
        """Take one calibration round's checks: lengthen (and check again) where a side's estimate
        moved, else settle. ``affordable(short)``: whether the budget allows a check whose short
        values last ``short`` seconds."""
        self.checks.extend(checks)
        moved = [c for c in checks if c.moved]
        if not moved:
            self.settled = True
            return
        longer = max(c.long for c in moved)
        self.length = max(self.length, longer)
        if LENGTH_FACTOR * longer > MAX_VALUE_TIME or not affordable(longer):
            self.settled = True
            limit = "the length limit" if LENGTH_FACTOR * longer > MAX_VALUE_TIME else "the time budget (--max-time)"
            self.unsettled = (
                f"the longest values checked ({format_time(longer)}) still moved it; longer ones would exceed {limit}"
            )

    def common_length(self, per_call: dict[str, float]) -> float:
        """The one value length of every side (``common_length``) from this case's checked length."""
        return common_length(self.length, per_call)

    def warning(self, case: str) -> str | None:
        """What the result says when the value length moved an estimate; None when it did not."""
        moved = [c for c in self.checks if c.moved]
        if not moved:
            return None
        first = moved[0]
        change = f"{abs(first.ratio - 1):.1%} {'more' if first.ratio > 1 else 'less'} CPU time per call"
        said = (
            f"value length moved the estimate on {case}: {first.contender} took {change} in "
            f"{format_time(first.long)} values than in {format_time(first.short)} ones "
            f"(periodic work, or work per value); values of {format_time(self.length)} were used"
        )
        return said + (f"; {self.unsettled}" if self.unsettled else "")


def common_length(shortest: float, per_call: dict[str, float]) -> float:
    """The one value length of every side, at ``per_call`` seconds a call each: at least ``shortest``
    and the longest call, and longer while some side's whole calls cannot come within MATCH of it."""
    length = max(shortest, max(per_call.values(), default=0.0))
    while length < MAX_VALUE_TIME and not all(_matches(length, t) for t in per_call.values()):
        length *= 1.25
    return length


def _matches(length: float, per_call: float) -> bool:
    return per_call <= 0 or abs(loops_for(length, per_call) * per_call / length - 1) <= MATCH


def values_per_process(values: int, length: float, round_seconds: float = math.inf, sides: int = 1) -> int:
    """Values a process gives in a measured round: ``values``, fewer when values are long; fewer
    still (one at least) when ``sides`` processes of MIN_VALUES values would not fit in
    ``round_seconds``, a round's share of the time budget: then a slow case still gets the
    rounds its interval needs (pyperf's --fast), rather than one round or none."""
    if length <= 0:
        return values
    usual = min(values, max(MIN_VALUES, int(PROCESS_SECONDS / length)))
    affordable = round_seconds / (sides * length)
    return usual if affordable >= usual else max(1, int(affordable))


def warmups_for(warmups: int, length: float) -> int:
    """Warmups before a process's values: none when one value is a call of SLOW_CALL or more (the
    process's first call, timed apart, has warmed it up; a warmup would cost more than a value)."""
    return 0 if length >= SLOW_CALL else warmups


def loops_for(length: float, per_call: float) -> int:
    """The calls that make one value last ``length`` seconds at ``per_call`` seconds a call."""
    return max(1, round(length / per_call)) if per_call > 0 else 1


def check_pairs(values: int, value_seconds: float, sides: int, max_time: float) -> int:
    """How many (short, long) pairs a length check of one process may take: half its values, fewer
    when a case's check would spend more than CHECK_SHARE of the budget (0: no check)."""
    pair_cost = (1 + LENGTH_FACTOR) * value_seconds * sides
    pairs = min(values // 2, int(CHECK_SHARE * max_time / pair_cost) if pair_cost > 0 else values // 2)
    return pairs if pairs >= MIN_CHECK_PAIRS else 0
