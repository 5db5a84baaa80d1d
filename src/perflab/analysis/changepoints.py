"""Change points: the commits where a benchmark's time stepped up or down, with each step's size.

A history is a series of points (one stored run each), each a median with a 95% interval. The
series is segmented into stretches of constant level by PELT (Killick et al. 2012: optimal
partitioning, with pruning) on log times, with a weighted Gaussian cost:

    cost(segment) = 1/2 sum_i w_i (y_i - weighted mean)^2,   y_i = log(median_i)
    w_i = 1 / sigma_i^2 * (nu + 1) / (nu + r_i^2 / sigma_i^2),   sigma_i^2 = s_i^2 + tau^2,   nu = 5

- s_i comes from the point's own interval: a precise run counts more than a noisy one.
- tau^2 is the run-to-run variance that no single run's interval sees (the machine is faster
  in one minute than in the next); it is estimated from successive differences with the median
  absolute deviation, which a few real steps do not inflate (the largest difference, the step
  if there is one, is left out: a short history has too few differences to outvote it).
- r_i is the point's distance from its local level (the median of the 5 points around it); the
  Student-t factor cuts the weight of a run far from its neighbours, as when the machine was
  busy during it (2x slower on this project's shared VM, with a tight interval), so it cannot
  buy a change point; a real step moves the local median with it and keeps its weight.
- Each change point costs ``penalty`` (default ``PENALTY_PER_LOG_N * log(n)``, calibrated by
  simulation and on replayed real noise: benchmarks/changepoint_replay.py), and a segment has at
  least ``MIN_SEGMENT`` points.
- A short stretch (at most ``MAX_TRANSIENT`` points) above (or below) the levels on both sides
  is a *transient* (a busy spell, or a regression reverted at once), reported apart from steps
  and left out of the levels; if the levels on its two sides differ, the step between them is
  reported with the whole stretch as its commit range.
- Steps smaller than ``MIN_STEP`` (3%) are not reported: the machine drifts that much.
- A step whose new level is supported by fewer than ``CONFIRMED`` points (within 3 sigma of
  it; at the end of the history) is *tentative*: the next runs confirm it or turn it into a
  transient.

Each step is reported with the labels around it (the change happened after ``before`` and at or
before ``after``) and the ratio of the two levels with a 95% interval (1 / sum of weights is the
variance of each segment's weighted mean; the interval ignores that the split was chosen from
the data, so it is slightly optimistic for small steps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from perflab.results.quantities import CONFIDENCE, Interval

_Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)

PENALTY_PER_LOG_N = 1.5
MIN_SEGMENT = 2
MAX_TRANSIENT = 4
CONFIRMED = 3
DEGREES_OF_FREEDOM = 5  # of the Student-t weights: heavy tails, as timings on a shared machine have
# Smaller steps are not reported: on this project's VM, runs of identical code a few minutes
# apart differ by up to 3.7% with tight intervals (benchmarks/results/changepoint_measurements.json).
MIN_STEP = 0.03
LOCAL_WINDOW = 5  # points around each one that define its local level


@dataclass(frozen=True)
class Point:
    label: str  # which code was measured: a short commit hash, or a run id
    value: float  # median time per call (seconds)
    low: float | None = None  # its 95% interval, when the run had one
    high: float | None = None


@dataclass(frozen=True)
class Step:
    index: int  # first point at the new level
    before: str  # label of the last point at the old level
    after: str  # label of the first point at the new level
    ratio: Interval  # new level / old level (> 1: slower)
    tentative: bool = False  # the new level has fewer than CONFIRMED points so far


@dataclass(frozen=True)
class Transient:
    first: str  # labels of the first and last point of the excursion
    last: str
    ratio: float  # excursion level / surrounding level


@dataclass
class Changes:
    steps: list[Step] = field(default_factory=list)
    transients: list[Transient] = field(default_factory=list)
    points: int = 0  # of the series
    needed: int = 0  # points a step needs (min_segment on each side); more than ``points``: none looked for

    def none_found(self) -> str:
        """What every surface says when there is no step: with too few points, that none was
        looked for (two runs 5x apart are not "one level")."""
        if self.points < self.needed:
            return (
                f"no change point looked for: {self.points} run(s), and a step needs {self.needed} "
                f"({self.needed // 2} on each side)"
            )
        return "no change point: the series is consistent with one level (steps under the machine's drift are not reported)"


def detect(
    points: Sequence[Point], penalty: float | None = None, min_segment: int = MIN_SEGMENT, min_step: float = MIN_STEP
) -> Changes:
    """Steps and transients in the series, oldest first; steps smaller than ``min_step`` are not
    reported (a deterministic measure such as instruction counts passes a smaller one)."""
    n = len(points)
    if n < 2 * min_segment:
        return Changes(points=n, needed=2 * min_segment)
    y = np.log([p.value for p in points])
    scales = np.sqrt(point_variances(points) + between_run_variance(points))
    weights = robust_weights(y, scales)
    if penalty is None:
        penalty = PENALTY_PER_LOG_N * math.log(n)
    bounds = [0, *_pelt(y, weights, penalty, min_segment), n]
    levels = [_level(y[a:b], weights[a:b]) for a, b in zip(bounds, bounds[1:])]
    changes = Changes(points=n, needed=2 * min_segment)
    last_before: dict[int, int] = {}  # boundary -> last point of the old level, when a transient sits between
    segment = 1
    while segment < len(levels) - 1:  # short excursions above (or below) both neighbours: transients
        (before, v_before), (inside, _), (after, v_after) = levels[segment - 1 : segment + 2]
        start, end = bounds[segment], bounds[segment + 1]
        if end - start > MAX_TRANSIENT or (inside - before) * (inside - after) <= 0:
            segment += 1
            continue
        changes.transients.append(Transient(points[start].label, points[end - 1].label, math.exp(inside - before)))
        weights[start:end] = 0.0  # the excursion is not part of any level
        left, right = bounds[segment - 1], bounds[segment + 2]
        if abs(after - before) <= _Z * math.sqrt(v_before + v_after):  # it came back: one level
            del bounds[segment : segment + 2]
            levels[segment - 1 : segment + 2] = [_level(y[left:right], weights[left:right])]
        else:  # a step hides under it: somewhere between start and end
            del bounds[segment]
            last_before[end] = start - 1
            levels[segment - 1 : segment + 2] = [
                _level(y[left:end], weights[left:end]),
                _level(y[end:right], weights[end:right]),
            ]
    for index, split in enumerate(bounds[1:-1], start=1):
        (old, v_old), (new, v_new) = levels[index - 1], levels[index]
        if abs(new - old) < math.log1p(min_step):
            continue
        half = _Z * math.sqrt(v_old + v_new)
        changes.steps.append(
            Step(
                split,
                points[last_before.get(split, split - 1)].label,
                points[split].label,
                Interval(math.exp(new - old), math.exp(new - old - half), math.exp(new - old + half)),
                tentative=_agreeing(y[split : bounds[index + 1]], scales[split : bounds[index + 1]], new) < CONFIRMED,
            )
        )
    return changes


def _agreeing(y: np.ndarray, scales: np.ndarray, level: float) -> int:
    """How many points lie within 3 sigma of ``level``: those that confirm it."""
    return int(np.sum(np.abs(y - level) <= 3 * scales))


def point_variances(points: Sequence[Point]) -> np.ndarray:
    """Variance of each log median from its 95% interval (its upper half when the lower bound is
    not positive, as with very few processes); points without one get the median variance."""

    def variance(p: Point) -> float:
        if p.high is None or not math.isfinite(p.high) or p.high <= p.value:
            return math.nan
        low = p.low if p.low is not None and 0 < p.low < p.value else p.value**2 / p.high
        return ((math.log(p.high) - math.log(low)) / (2 * _Z)) ** 2

    variances = np.array([variance(p) for p in points])
    known = variances[~np.isnan(variances)]
    variances[np.isnan(variances)] = float(np.median(known)) if known.size else 0.0
    return variances


def between_run_variance(points: Sequence[Point]) -> float:
    """Run-to-run variance of log times beyond what the points' intervals explain.

    Without a step, y[i+1] - y[i] has variance s_i^2 + s_{i+1}^2 + 2 tau^2; the MAD of the
    successive differences estimates it robustly (a step spoils one difference, not the median).
    The largest difference is left out, as the step it may be: in a long history one difference
    fewer changes nothing, but in a short one (two runs before a 5x step, two after, one of them
    on a busy machine) the step and the busy run are two of three differences, and their MAD
    called the step noise (15% of such histories by simulation; 2% with it left out).
    """
    if len(points) < 3:
        return 0.0
    differences = np.diff(np.log([p.value for p in points]))
    differences = np.delete(differences, np.argmax(np.abs(differences)))
    spread = 1.4826 * float(np.median(np.abs(differences - np.median(differences))))
    own = float(np.median(point_variances(points)))
    # A floor: identical values (or perfectly precise points) must not give infinite weights.
    return max(spread**2 / 2 - own, 1e-10)


def robust_weights(y: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Inverse variances, times the Student-t weight of each point's distance from its local level
    (the median of the ``LOCAL_WINDOW`` points around it): a run far from its neighbours, as
    when the machine was busy during it, counts little; a step moves the local median with it,
    so the points of a real step keep their weight."""
    local = local_levels(y)
    z2 = ((y - local) / scales) ** 2
    return (DEGREES_OF_FREEDOM + 1) / (DEGREES_OF_FREEDOM + z2) / scales**2


def local_levels(y: np.ndarray) -> np.ndarray:
    """The median of the ``LOCAL_WINDOW`` points around each point. At the start the window is
    shifted inside the series; at the end it is cut short, so that the newest runs define their
    own level (a fresh step is not mistaken for an outlier). Full windows in one vectorised call:
    a history of thousands of runs (the web view's overview) takes milliseconds, not a second."""
    n, half = len(y), LOCAL_WINDOW // 2
    local = np.empty(n)
    if n >= LOCAL_WINDOW:
        local[half : n - half] = np.median(np.lib.stride_tricks.sliding_window_view(y, LOCAL_WINDOW), axis=1)
    for i in range(max(n - half, 0), n):
        local[i] = np.median(y[i - half :]) if i >= half else np.median(y[:LOCAL_WINDOW])
    local[: min(half, n)] = np.median(y[:LOCAL_WINDOW])
    return local


def _level(y: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """A segment's weighted mean and the variance of that estimate."""
    total = float(np.sum(weights))
    return float(np.sum(weights * y) / total), 1 / total


def _pelt(y: np.ndarray, weights: np.ndarray, penalty: float, min_segment: int) -> list[int]:
    """Start indices of the segments after the first, minimising total cost + penalty per change,
    with cost(segment) = 1/2 sum w_i (y_i - weighted mean)^2 (O(1) each, from prefix sums)."""
    n = len(y)
    sw, swy, swy2 = (np.concatenate([[0.0], np.cumsum(v)]) for v in (weights, weights * y, weights * y * y))
    best = np.zeros(n + 1)  # best[t]: minimal cost of y[:t], penalties included
    best[0] = -penalty
    previous = np.zeros(n + 1, int)  # start of the last segment in that optimum
    candidates = np.array([0])
    for end in range(min_segment, n + 1):
        admissible = candidates[end - candidates >= min_segment]
        waiting = candidates[end - candidates < min_segment]
        weight, total = sw[end] - sw[admissible], swy[end] - swy[admissible]
        costs = (swy2[end] - swy2[admissible] - total * total / weight) / 2
        totals = best[admissible] + costs + penalty
        index = int(np.argmin(totals))
        best[end], previous[end] = totals[index], admissible[index]
        # Pruning: a start that cannot beat the optimum now never will (splitting a segment never
        # raises its cost), so it is dropped; starts too recent to be admissible wait.
        candidates = np.concatenate([admissible[totals - penalty <= best[end]], waiting, [end]])
    starts = []
    end = n
    while end > 0:
        end = int(previous[end])
        if end > 0:
            starts.append(end)
    return sorted(starts)
