"""Statistics that respect how timings are produced: values nested in worker processes.

Values from one process share its memory layout, hash seed and the machine's state at that
moment, so they are not independent; the process is the unit of independence.

- Estimates of one (case, contender) cell: median and mean of all values, with 95% intervals from
  a cluster bootstrap that resamples whole processes, widened on the log scale for small numbers
  of processes by the Student-t factor (the percentile bootstrap alone is too narrow with few
  clusters).
- Comparisons of two contenders: processes are run in rounds (one process of each contender per
  round, on one CPU, values alternating), so each round is a block and its values come in
  time-adjacent pairs. A round's log ratio is the median of its pairs' log ratios; the ratio of
  times is the exponential of the mean over rounds, with a t interval: changes of the machine's
  speed within and between rounds cancel out.
- Many comparisons: Benjamini-Hochberg adjusted p-values control the false discovery rate.
- Across cases: the geometric mean of ratios, with an interval from the per-case standard errors.

Coverage and false-positive rates are checked by simulation in tests/test_stats.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as scipy_stats

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
_Z = scipy_stats.norm.ppf(0.5 + CONFIDENCE / 2)


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float

    @property
    def relative_half_width(self) -> float:
        """The larger distance from the estimate to a bound, as a fraction of the estimate."""
        if not math.isfinite(self.low) or not math.isfinite(self.high) or self.value == 0:
            return math.inf
        return max(self.high - self.value, self.value - self.low) / abs(self.value)

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high


@dataclass(frozen=True)
class CellEstimates:
    median: Interval
    mean: Interval
    processes: int
    values: int
    outlier_values: int       # values beyond Tukey's far-out fences (3 IQR), kept in every estimate
    outlier_processes: int    # processes whose median is beyond the fences of all process medians


@dataclass(frozen=True)
class Comparison:
    ratio: Interval           # time of the contender / time of the reference
    p_value: float
    pairs: int
    log_se: float             # standard error of the mean log ratio (for combining across cases)


def _small_sample_factor(clusters: int) -> float:
    """Widening of a bootstrap interval so that it has t-interval coverage with few clusters."""
    return math.sqrt(clusters / (clusters - 1)) * scipy_stats.t.ppf(0.5 + CONFIDENCE / 2, clusters - 1) / _Z


def estimate_cell(processes: Sequence[Sequence[float]], seed: int = 0,
                  resamples: int = BOOTSTRAP_RESAMPLES) -> CellEstimates:
    """Median and mean over all values, with 95% cluster-bootstrap intervals."""
    processes = [list(p) for p in processes if len(p)]
    if not processes:
        raise ValueError("no values to estimate from")
    width = max(len(p) for p in processes)
    matrix = np.full((len(processes), width), np.nan)
    for row, values in zip(matrix, processes):
        row[:len(values)] = values
    all_values = matrix[~np.isnan(matrix)]
    median = float(np.median(all_values))
    mean = float(np.mean(all_values))
    k = len(processes)
    if k < 2:
        no_interval = (-math.inf, math.inf)
        return CellEstimates(Interval(median, *no_interval), Interval(mean, *no_interval), k,
                             all_values.size, _far_out(all_values), 0)
    rng = np.random.default_rng(seed)
    picks = matrix[rng.integers(0, k, size=(resamples, k))].reshape(resamples, -1)
    factor = _small_sample_factor(k)
    tail = (1 - CONFIDENCE) / 2 * 100
    intervals = []
    for estimate, replicates in ((median, np.nanmedian(picks, axis=1)), (mean, np.nanmean(picks, axis=1))):
        low, high = np.percentile(replicates, [tail, 100 - tail])
        # Widened on the log scale: times are positive and vary by factors, and a linear widening
        # with two or three processes (t is 12.7 for one degree of freedom) crossed zero.
        intervals.append(Interval(estimate, float(estimate * (low / estimate) ** factor),
                                  float(estimate * (high / estimate) ** factor)))
    process_medians = np.nanmedian(matrix, axis=1)
    return CellEstimates(intervals[0], intervals[1], k, all_values.size,
                         _far_out(all_values), _far_out(process_medians))


def _far_out(values: np.ndarray) -> int:
    q1, q3 = np.percentile(values, [25, 75])
    spread = 3 * (q3 - q1)
    return int(np.sum((values < q1 - spread) | (values > q3 + spread)))


def round_log_ratio(reference: Sequence[float], contender: Sequence[float]) -> float:
    """The log time ratio of one round: the median over time-adjacent value pairs.

    Value i of every worker in a round is measured right after (or before) value i of the others
    on the same CPU, so each pair saw the same machine state; the median keeps the pairs whose
    two halves straddled a change of state from moving the estimate.
    """
    pairs = [math.log(c / r) for r, c in zip(reference, contender)]
    return float(np.median(pairs))


def compare_paired(reference: dict[int, Sequence[float]], contender: dict[int, Sequence[float]]) -> Comparison:
    """Ratio contender/reference: a t interval over rounds of the per-round log ratios."""
    rounds = sorted(r for r in set(reference) & set(contender) if len(reference[r]) and len(contender[r]))
    logs = np.array([round_log_ratio(reference[r], contender[r]) for r in rounds])
    n = len(logs)
    if n == 0:
        return Comparison(Interval(math.nan, -math.inf, math.inf), 1.0, 0, math.inf)
    centre = float(np.mean(logs))
    if n < 2:
        return Comparison(Interval(math.exp(centre), -math.inf, math.inf), 1.0, n, math.inf)
    se = float(np.std(logs, ddof=1) / math.sqrt(n))
    if se == 0:
        point = Interval(math.exp(centre), math.exp(centre), math.exp(centre))
        return Comparison(point, 1.0 if centre == 0 else 0.0, n, 0.0)
    t_crit = scipy_stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1)
    p_value = float(2 * scipy_stats.t.sf(abs(centre) / se, n - 1))
    ratio = Interval(math.exp(centre), math.exp(centre - t_crit * se), math.exp(centre + t_crit * se))
    return Comparison(ratio, p_value, n, se)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Adjusted p-values; rejecting those <= alpha controls the false discovery rate at alpha."""
    m = len(p_values)
    if m == 0:
        return []
    order = np.argsort(p_values)
    ranked = np.asarray(p_values, dtype=float)[order] * m / np.arange(1, m + 1)
    adjusted_sorted = np.minimum.accumulate(ranked[::-1])[::-1].clip(max=1.0)
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return adjusted.tolist()


def geometric_mean(comparisons: Sequence[Comparison]) -> Interval | None:
    """Geometric mean of ratios across cases; the interval combines per-case standard errors
    (cases are measured in separate processes, so independent) with Welch-Satterthwaite df."""
    usable = [c for c in comparisons if c.pairs >= 2 and math.isfinite(c.log_se)]
    if not usable:
        return None
    m = len(usable)
    centre = sum(math.log(c.ratio.value) for c in usable) / m
    variances = [c.log_se ** 2 for c in usable]
    se = math.sqrt(sum(variances)) / m
    if se == 0:
        return Interval(math.exp(centre), math.exp(centre), math.exp(centre))
    df = sum(variances) ** 2 / sum(v ** 2 / (c.pairs - 1) for v, c in zip(variances, usable) if v > 0)
    t_crit = scipy_stats.t.ppf(0.5 + CONFIDENCE / 2, df)
    return Interval(math.exp(centre), math.exp(centre - t_crit * se), math.exp(centre + t_crit * se))


FASTER, SLOWER, NO_DIFFERENCE = "faster", "slower", "no detectable difference"


def verdict(ratio: float, p_adjusted: float, alpha: float, min_effect: float) -> str:
    """Faster/slower only when significant after FDR correction and beyond ``min_effect``."""
    if p_adjusted > alpha or abs(ratio - 1) < min_effect:
        return NO_DIFFERENCE
    return FASTER if ratio < 1 else SLOWER
