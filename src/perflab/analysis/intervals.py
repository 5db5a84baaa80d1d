"""Interval maths in one place: Student-t intervals and tests of means, and the false discovery
rate correction.

The t distribution comes from scipy.special (``stdtr``/``stdtrit``, what scipy.stats.t calls): the
mean ± t·se interval, its test and the Benjamini-Hochberg step-up are their textbook definitions,
checked against scipy.stats (the reference implementation) on many random inputs in
tests/unit/test_intervals.py. Why not scipy.stats itself: importing it costs ~0.7 s of CPU (it
parses its own docstrings), paid by every verb that measures; scipy.special costs a fifth of that.
Yuen's trimmed test, with no such definition to copy, is scipy.stats', imported when first used.

Every function here takes plain arrays and returns plain numbers; callers decide what the values
are (per-round log ratios, per-process log medians, per-run times). Degenerate inputs (fewer than
two values, zero spread), where scipy returns NaN, get the answers perflab has always given:
an unbounded interval for too little data, a point interval for no spread.
"""

from __future__ import annotations

import contextlib
import functools
import math
import statistics
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from perflab.results.quantities import CONFIDENCE, Interval

Z = statistics.NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # the normal quantile of a two-sided 95% interval


@functools.cache
def t_quantile(degrees_of_freedom: float, probability: float = 0.5 + CONFIDENCE / 2) -> float:
    """The Student-t quantile (by default, of a two-sided 95% interval)."""
    return float(special.stdtrit(degrees_of_freedom, probability))


def t_survival(t: float, degrees_of_freedom: float) -> float:
    """P(T > t) for Student's t."""
    return float(special.stdtr(degrees_of_freedom, -t))


@dataclass(frozen=True)
class MeanTest:
    """A t interval of a mean (or a difference of means) and its tests."""

    interval: Interval  # the mean with its 95% interval
    se: float  # its standard error
    df: float  # degrees of freedom of the t distribution
    p_value: float  # two-sided, H0: mean = 0

    def p_above(self, bound: float) -> float:
        """One-sided p-value of H0 "mean <= bound", on the same t distribution."""
        if self.se == 0:
            return 1.0 if self.interval.value <= bound else 0.0
        return t_survival((self.interval.value - bound) / self.se, self.df)


@contextlib.contextmanager
def _nearly_identical_values_allowed() -> Iterator[None]:
    """scipy warns of "catastrophic cancellation" when values nearly agree (a profile's share that
    every run puts at 100%); the interval is then just narrow, and the warning reached users as
    two lines of scipy's in the middle of perflab's output."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Precision loss occurred", category=RuntimeWarning)
        yield


def one_sample(values: Sequence[float] | np.ndarray) -> MeanTest:
    """t interval of the mean of ``values`` and the test of mean = 0 (as ``scipy.stats.ttest_1samp``)."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return MeanTest(Interval(mean, -math.inf, math.inf), math.inf, 0, 1.0)
    se = float(values.std(ddof=1)) / math.sqrt(len(values))
    if se == 0:
        return MeanTest(Interval(mean, mean, mean), 0.0, len(values) - 1, 1.0 if mean == 0 else 0.0)
    df = len(values) - 1
    half = t_quantile(df) * se
    p_value = min(1.0, 2 * t_survival(abs(mean) / se, df))
    return MeanTest(Interval(mean, mean - half, mean + half), se, df, p_value)


def paired(a: np.ndarray, b: np.ndarray) -> MeanTest:
    """t interval of the mean of b - a over pairs (each pair measured close in time)."""
    return one_sample(np.asarray(b, dtype=float) - np.asarray(a, dtype=float))


def welch(a: np.ndarray, b: np.ndarray, trim: float = 0.0) -> MeanTest:
    """Welch's t interval of mean(b) - mean(a); with ``trim``, Yuen's test on trimmed means
    (``scipy.stats.ttest_ind(equal_var=False, trim=...)``). Unbounded with fewer than two values
    on a side."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    from scipy import stats  # ~0.7 s to import: only the gate and profile diffs come here

    difference = float(stats.trim_mean(b, trim) - stats.trim_mean(a, trim))
    if len(a) < 2 or len(b) < 2:
        return MeanTest(Interval(difference, -math.inf, math.inf), math.inf, 0, 1.0)
    if np.ptp(a) == 0 and np.ptp(b) == 0:  # no spread on either side: scipy would divide by zero
        return MeanTest(
            Interval(difference, difference, difference), 0.0, len(a) + len(b) - 2, 1.0 if difference == 0 else 0.0
        )
    with _nearly_identical_values_allowed():
        test = stats.ttest_ind(b, a, equal_var=False, trim=trim)
    bounds = test.confidence_interval(CONFIDENCE)
    se = float(bounds.high - bounds.low) / (2 * t_quantile(float(test.df)))  # the interval is difference ± t·se
    return MeanTest(Interval(difference, float(bounds.low), float(bounds.high)), se, float(test.df), float(test.pvalue))


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Adjusted p-values; rejecting those <= alpha controls the false discovery rate at alpha (the
    step-up of ``scipy.stats.false_discovery_control(method="bh")``: p·m/rank, made monotone from
    the largest p down, at most 1)."""
    if len(p_values) == 0:
        return []
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p)
    scaled = p[order] * len(p) / np.arange(1, len(p) + 1)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return [float(value) for value in adjusted]
