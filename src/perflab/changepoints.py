"""Change points: the commits where a benchmark's time stepped up or down, with each step's size.

A history is a series of points (one stored run each), each a median with a 95% interval. The
series is segmented into stretches of constant level by PELT (Killick et al. 2012, exact optimal
partitioning with pruning) with a Gaussian cost on log times where every point is weighted by the
inverse of its variance:

    cost(segment) = sum_i w_i (y_i - mean_w)^2,   w_i = 1 / (s_i^2 + tau^2),   y_i = log(median_i)

- s_i comes from the point's own interval: a precise run counts more than a noisy one.
- tau^2 is the run-to-run variance that no single run's interval sees (the machine is faster
  in one minute than in the next); it is estimated from successive differences with the median
  absolute deviation, which a few real steps do not inflate.
- Each change point costs ``penalty`` (default ``PENALTY_PER_LOG_N * log(n)``, calibrated by
  simulation on Gaussian and on replayed real noise: see benchmarks/changepoint_figures.py), and
  a segment has at least ``MIN_SEGMENT`` points, so one outlying run is never a step.

Each step is reported with the labels around it (the change happened after ``before`` and at or
before ``after``) and the ratio of the two levels with a 95% interval from the segments' weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

from perflab.stats import CONFIDENCE, Interval

_Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)

PENALTY_PER_LOG_N = 3.0
MIN_SEGMENT = 2
DEGREES_OF_FREEDOM = 3    # Student-t noise: heavy tails, as timings on a shared machine have
IRLS_STEPS = 8


@dataclass(frozen=True)
class Point:
    label: str               # which code was measured: a short commit hash, or a run id
    value: float             # median time per call (seconds)
    low: float | None = None  # its 95% interval, when the run had one
    high: float | None = None


@dataclass(frozen=True)
class Step:
    index: int               # first point at the new level
    before: str              # label of the last point at the old level
    after: str               # label of the first point at the new level
    ratio: Interval          # new level / old level (> 1: slower)


def detect(points: Sequence[Point], penalty: float | None = None, min_segment: int = MIN_SEGMENT) -> list[Step]:
    """Steps in the series, oldest first."""
    n = len(points)
    if n < 2 * min_segment:
        return []
    y = np.log([p.value for p in points])
    scales = np.sqrt(point_variances(points) + between_run_variance(points))
    if penalty is None:
        penalty = PENALTY_PER_LOG_N * math.log(n)
    bounds = [0, *_pelt(y, scales, penalty, min_segment), n]
    steps = []
    for left, split, right in zip(bounds, bounds[1:], bounds[2:]):
        old_level, old_variance = _level(y[left:split], scales[left:split])
        new_level, new_variance = _level(y[split:right], scales[split:right])
        difference = new_level - old_level
        half = _Z * math.sqrt(old_variance + new_variance)
        steps.append(Step(split, points[split - 1].label, points[split].label,
                          Interval(math.exp(difference), math.exp(difference - half), math.exp(difference + half))))
    return steps


def point_variances(points: Sequence[Point]) -> np.ndarray:
    """Variance of each log median from its 95% interval; points without one get the median variance."""
    variances = np.array([((math.log(p.high) - math.log(p.low)) / (2 * _Z)) ** 2
                          if p.low and p.high and 0 < p.low < p.high and math.isfinite(p.high) else math.nan
                          for p in points])
    known = variances[~np.isnan(variances)]
    variances[np.isnan(variances)] = float(np.median(known)) if known.size else 0.0
    return variances


def between_run_variance(points: Sequence[Point]) -> float:
    """Run-to-run variance of log times beyond what the points' intervals explain.

    Without a step, y[i+1] - y[i] has variance s_i^2 + s_{i+1}^2 + 2 tau^2; the MAD of the
    successive differences estimates it robustly (a step spoils one difference, not the median).
    """
    if len(points) < 3:
        return 0.0
    differences = np.diff(np.log([p.value for p in points]))
    spread = 1.4826 * float(np.median(np.abs(differences - np.median(differences))))
    own = float(np.median(point_variances(points)))
    # A floor: identical values (or perfectly precise points) must not give infinite weights.
    return max(spread ** 2 / 2 - own, 1e-10)


def _losses(y: np.ndarray, scales: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Negative log-likelihood (up to constants) of Student-t noise: quadratic near the level,
    logarithmic far from it, so a run measured on a busy machine cannot buy a change point."""
    z2 = ((y - level) / scales) ** 2
    return (DEGREES_OF_FREEDOM + 1) / 2 * np.log1p(z2 / DEGREES_OF_FREEDOM)


def _fit_levels(y: np.ndarray, scales: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The Student-t location of every row of ``y`` (entries where ``mask``), by iteratively
    reweighted least squares from the weighted median: a few steps converge for these sizes."""
    inverse = np.where(mask, 1 / scales ** 2, 0.0)
    level = np.array([_weighted_median(row[m], w[m]) for row, w, m in zip(y, inverse, mask)])
    for _ in range(IRLS_STEPS):
        z2 = ((y - level[:, None]) / scales) ** 2
        weights = inverse * (DEGREES_OF_FREEDOM + 1) / (DEGREES_OF_FREEDOM + z2)
        level = np.sum(weights * np.where(mask, y, 0.0), axis=1) / np.sum(weights, axis=1)
    return level


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, cumulative[-1] / 2)])


def _level(y: np.ndarray, scales: np.ndarray) -> tuple[float, float]:
    """A segment's level and the variance of that estimate (from the final IRLS weights)."""
    level = float(_fit_levels(y[None, :], scales[None, :], np.ones((1, len(y)), bool))[0])
    z2 = ((y - level) / scales) ** 2
    information = np.sum((DEGREES_OF_FREEDOM + 1) / (DEGREES_OF_FREEDOM + z2) / scales ** 2)
    return level, float(1 / information)


def _pelt(y: np.ndarray, scales: np.ndarray, penalty: float, min_segment: int) -> list[int]:
    """Start indices of the segments after the first, minimising total cost + penalty per change."""
    n = len(y)

    def costs(starts: list[int], end: int) -> np.ndarray:
        """Cost of every segment [start, end), fitted together as rows of one padded matrix."""
        width = end - min(starts)
        rows = np.zeros((len(starts), width))
        row_scales = np.ones((len(starts), width))
        mask = np.zeros((len(starts), width), bool)
        for row, start in enumerate(starts):
            rows[row, :end - start], row_scales[row, :end - start] = y[start:end], scales[start:end]
            mask[row, :end - start] = True
        levels = _fit_levels(rows, row_scales, mask)
        return np.sum(np.where(mask, _losses(rows, row_scales, levels[:, None]), 0.0), axis=1)

    best = np.zeros(n + 1)         # best[t]: minimal cost of y[:t], penalties included
    best[0] = -penalty
    previous = [0] * (n + 1)       # start of the last segment in that optimum
    candidates: list[int] = [0]
    for end in range(min_segment, n + 1):
        admissible = [s for s in candidates if end - s >= min_segment]
        waiting = [s for s in candidates if end - s < min_segment]
        totals = best[admissible] + costs(admissible, end) + penalty
        index = int(np.argmin(totals))
        best[end], previous[end] = totals[index], admissible[index]
        # Pruning: a start that cannot beat the optimum now never will (splitting a segment never
        # raises its cost), so it is dropped; starts too recent to be admissible wait.
        candidates = [s for s, total in zip(admissible, totals) if total - penalty <= best[end]] + waiting
        candidates.append(end)
    starts = []
    end = n
    while end > 0:
        end = previous[end]
        if end > 0:
            starts.append(end)
    return sorted(starts)
