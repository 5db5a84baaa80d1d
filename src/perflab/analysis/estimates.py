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
- Two runs measured at different times (no rounds in common): the ratio of their medians, with a
  cluster-bootstrap interval of each run resampled on its own.
- Many comparisons: Benjamini-Hochberg adjusted p-values control the false discovery rate.
- Across cases: the geometric mean of ratios, with an interval from the per-case standard errors.

Coverage and false-positive rates are checked by simulation in tests/simulation/test_estimates.py.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

import numpy as np

from perflab.analysis import sequential
from perflab.analysis.intervals import MeanTest, Z, one_sample, t_quantile
from perflab.results.quantities import CONFIDENCE, FASTER, NO_DIFFERENCE, SLOWER, CellEstimates, Comparison, Interval

# The cluster bootstrap (resampling whole processes) and its small-sample widening are written
# here: no library resamples clusters of unequal size and widens on the log scale as timings need.
BOOTSTRAP_RESAMPLES = 2000


def _small_sample_factor(clusters: int, degrees_of_freedom: float | None = None) -> float:
    """Widening of a bootstrap interval so that it has t-interval coverage with few clusters
    (``degrees_of_freedom``: of the t quantile, when not ``clusters - 1``)."""
    df = clusters - 1 if degrees_of_freedom is None else degrees_of_freedom
    return math.sqrt(clusters / (clusters - 1)) * t_quantile(df) / Z


def estimate_cell(
    processes: Sequence[Sequence[float]], seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES
) -> CellEstimates:
    """Median and mean over all values, with 95% cluster-bootstrap intervals."""
    matrix = _process_matrix(processes)
    all_values = matrix[~np.isnan(matrix)]
    median = float(np.median(all_values))
    mean = float(np.mean(all_values))
    k = len(matrix)
    if k < 2:
        no_interval = (-math.inf, math.inf)
        return CellEstimates(
            Interval(median, *no_interval), Interval(mean, *no_interval), k, all_values.size, _far_out(all_values), 0
        )
    rng = np.random.default_rng(seed)
    chosen = rng.integers(0, k, size=(resamples, k))
    picks = matrix[chosen].reshape(resamples, -1)
    factor = _small_sample_factor(k)
    tail = (1 - CONFIDENCE) / 2 * 100
    intervals = []
    for estimate, replicates in ((median, _bootstrap_medians(matrix, chosen)), (mean, np.nanmean(picks, axis=1))):
        low, high = np.percentile(replicates, [tail, 100 - tail])
        # Widened on the log scale: times are positive and vary by factors, and a linear widening
        # with two or three processes (t is 12.7 for one degree of freedom) crossed zero.
        intervals.append(
            Interval(
                estimate, float(estimate * (low / estimate) ** factor), float(estimate * (high / estimate) ** factor)
            )
        )
    process_medians = np.nanmedian(matrix, axis=1)
    return CellEstimates(
        intervals[0], intervals[1], k, all_values.size, _far_out(all_values), _far_out(process_medians)
    )


def _process_matrix(processes: Sequence[Sequence[float]]) -> np.ndarray:
    """One row per process with values, padded with NaN to the longest (resampled whole)."""
    processes = [list(p) for p in processes if len(p)]
    if not processes:
        raise ValueError("no values to estimate from")
    matrix = np.full((len(processes), max(len(p) for p in processes)), np.nan)
    for row, values in zip(matrix, processes):
        row[: len(values)] = values
    return matrix


def _bootstrap_medians(matrix: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """The median of the values of each row of ``chosen`` (indices of ``matrix``'s processes, one
    bootstrap replicate per row), the same values as numpy's median of the picked rows.

    The bootstrap takes thousands, and the runner asks for them after every round: instead of
    partitioning each replicate's values, all values are sorted once and a replicate's median is
    where the running count of its values (each process's values times the times it was picked)
    passes the middle, several times faster. Processes padded with NaN (fewer values than the
    others) take nanmedian on the picked rows."""
    resamples, k = chosen.shape
    if np.isnan(matrix).any():
        return np.nanmedian(matrix[chosen].reshape(resamples, -1), axis=1)
    n = matrix.size  # values in every replicate: k processes picked of k, each with all its values
    order = np.argsort(matrix, axis=None)
    ordered, owner = matrix.ravel()[order], order // matrix.shape[1]
    picked = np.bincount((chosen + k * np.arange(resamples)[:, None]).ravel(), minlength=resamples * k)
    running = np.cumsum(picked.reshape(resamples, k).astype(np.int32)[:, owner], axis=1, dtype=np.int32)
    low = ordered[np.count_nonzero(running <= (n - 1) // 2, axis=1)]
    high = ordered[np.count_nonzero(running <= n // 2, axis=1)]
    return (low + high) / 2  # as numpy's median: the middle value, or the mean of the two middle ones


def ratio_of_medians(
    before: Sequence[Sequence[float]],
    after: Sequence[Sequence[float]],
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> Comparison:
    """Ratio after/before of the medians of all values (the medians ``estimate_cell`` reports, so
    the ratio is the ratio of the times shown), for two runs measured at different times.

    The interval: each run's processes resampled on their own (a cluster bootstrap per run), the
    log ratio's percentile interval widened as ``estimate_cell`` widens its own (by the run with
    fewer processes, with the degrees of freedom of both). The p-value of "no change" is read from the same widened distribution (the
    share of replicates beyond 1, both sides), so that verdict and interval agree. A median moves little when a minority of
    processes ran slow (a loaded machine), where a mean of process medians follows them. Drift of
    the machine between the two runs is not cancelled: only interleaved rounds do that."""
    old, new = _process_matrix(before), _process_matrix(after)
    value = float(np.median(new[~np.isnan(new)])) / float(np.median(old[~np.isnan(old)]))
    k = min(len(old), len(new))
    if k < 2:
        return Comparison(Interval(value, -math.inf, math.inf), 1.0, k, math.inf)
    centre = math.log(value)
    rng = np.random.default_rng(seed)

    def medians(matrix: np.ndarray) -> np.ndarray:
        return _bootstrap_medians(matrix, rng.integers(0, len(matrix), size=(resamples, len(matrix))))

    # Both runs' processes make the spread of the ratio: the t quantile has the degrees of freedom of both.
    factor = _small_sample_factor(k, len(old) + len(new) - 2)
    replicates = centre + factor * (np.log(medians(new) / medians(old)) - centre)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    beyond = min(np.sum(replicates <= 0), np.sum(replicates >= 0))
    p_value = min(1.0, 2 * (beyond + 1) / (resamples + 1))
    # Bounds that rounding put a hair past the estimate (every replicate equal to it) are the estimate.
    ratio = Interval(value, min(value, math.exp(float(low))), max(value, math.exp(float(high))))
    return Comparison(ratio, p_value, k, float(np.std(replicates, ddof=1)))


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
    # statistics.median, not numpy's: the same middle value (or mean of the two) for a round's few
    # dozen pairs in a hundredth of the time; the runner recomputes every round's ratio after each round.
    return float(statistics.median([math.log(c / r) for r, c in zip(reference, contender)]))


def compare_paired(
    reference: Mapping[int, Sequence[float]], contender: Mapping[int, Sequence[float]], anytime: bool = False
) -> Comparison:
    """Ratio contender/reference over rounds of the per-round log ratios: a t interval, or with
    ``anytime`` (the number of rounds was chosen by looking at them) the confidence sequence's."""
    rounds = sorted(r for r in set(reference) & set(contender) if len(reference[r]) and len(contender[r]))
    return compare_round_logs([round_log_ratio(reference[r], contender[r]) for r in rounds], anytime)


def compare_round_logs(round_logs: Sequence[float], anytime: bool = False) -> Comparison:
    """``compare_paired`` from the rounds' log ratios (``round_log_ratio``), for a caller that keeps
    them as rounds arrive instead of recomputing every round's ratio each time."""
    logs = np.array(round_logs, dtype=float)
    n = len(logs)
    if n == 0:
        return Comparison(Interval(math.nan, -math.inf, math.inf), 1.0, 0, math.inf, anytime)
    if n < 2:
        return Comparison(Interval(math.exp(float(logs[0])), -math.inf, math.inf), 1.0, n, math.inf, anytime)
    test = one_sample(logs)
    if anytime:
        sd = test.se * math.sqrt(n)
        log_ratio = sequential.interval(n, test.interval.value, sd)
        p_value = sequential.p_value(n, test.interval.value, sd)
    else:
        log_ratio, p_value = test.interval, test.p_value
    ratio = Interval(math.exp(log_ratio.value), math.exp(log_ratio.low), math.exp(log_ratio.high))
    return Comparison(ratio, p_value, n, test.se, anytime)


def p_above(comparison: Comparison, bound: float) -> float:
    """One-sided p-value of H0 "ratio <= bound" (a gate's regression beyond its threshold), of the
    kind of the comparison's interval: the t distribution's over rounds, or the anytime-valid one
    where the rounds stopped on what they saw (perflab.analysis.sequential). 1 without an interval."""
    n, se = comparison.pairs, comparison.log_se
    if n < 2 or not math.isfinite(se):
        return 1.0
    centre, limit = math.log(comparison.ratio.value), math.log(bound)
    if comparison.anytime:
        return sequential.p_above(n, centre, se * math.sqrt(n), limit)
    return MeanTest(Interval(centre, math.nan, math.nan), se, n - 1, comparison.p_value).p_above(limit)


def geometric_mean(comparisons: Sequence[Comparison]) -> Interval | None:
    """Geometric mean of ratios across cases; the interval combines per-case standard errors
    (cases are measured in separate processes, so independent) with Welch-Satterthwaite df, or
    where the rounds stopped on what they saw, averages the cases' anytime-valid intervals."""
    usable = [c for c in comparisons if c.pairs >= 2 and math.isfinite(c.log_se)]
    if not usable:
        return None
    m = len(usable)
    centre = sum(math.log(c.ratio.value) for c in usable) / m
    if any(c.anytime for c in usable):
        # Each case's confidence sequence at 1 - 5%/m: all of them cover together with 95%
        # (Bonferroni), and then so does the mean of their bounds, at any stopping times.
        bounds = [
            sequential.interval(
                c.pairs, math.log(c.ratio.value), c.log_se * math.sqrt(c.pairs), 1 - (1 - CONFIDENCE) / m
            )
            for c in usable
        ]
        low, high = (sum(getattr(b, side) for b in bounds) / m for side in ("low", "high"))
        return Interval(math.exp(centre), math.exp(low), math.exp(high))
    variances = [c.log_se**2 for c in usable]
    se = math.sqrt(sum(variances)) / m
    if se == 0:
        return Interval(math.exp(centre), math.exp(centre), math.exp(centre))
    df = sum(variances) ** 2 / sum(v**2 / (c.pairs - 1) for v, c in zip(variances, usable) if v > 0)
    half = t_quantile(df) * se
    return Interval(math.exp(centre), math.exp(centre - half), math.exp(centre + half))


def verdict(ratio: float, p_adjusted: float, alpha: float, min_effect: float) -> str:
    """Faster/slower only when significant after FDR correction and beyond ``min_effect``."""
    if p_adjusted > alpha or abs(ratio - 1) < min_effect:
        return NO_DIFFERENCE
    return FASTER if ratio < 1 else SLOWER
