"""perflab.analysis.intervals gives what perflab's hand-written t intervals and corrections gave
before they were replaced by scipy.stats: the same numbers, on many random inputs (fixed seeds)."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from perflab.analysis import intervals

T = lambda df: scipy_stats.t.ppf(0.975, df)


def hand_one_sample(x):
    n, mean = len(x), float(np.mean(x))
    se = float(np.std(x, ddof=1)) / math.sqrt(n)
    return mean, mean - T(n - 1) * se, mean + T(n - 1) * se, 2 * scipy_stats.t.sf(abs(mean) / se, n - 1), se


def hand_yuen(before, after, trim):
    def trimmed(sample):
        ordered = np.sort(sample)
        n = len(ordered)
        cut = int(trim * n)
        kept = n - 2 * cut
        winsorized = np.clip(ordered, ordered[cut], ordered[n - cut - 1])
        return float(ordered[cut : n - cut].mean()), float(winsorized.var(ddof=1) / (kept * (kept - 1)) * (n - 1)), kept

    (mb, vb, kb), (ma, va, ka) = trimmed(before), trimmed(after)
    d, se = ma - mb, math.sqrt(vb + va)
    df = (vb + va) ** 2 / (vb**2 / (kb - 1) + va**2 / (ka - 1))
    return (
        d,
        d - T(df) * se,
        d + T(df) * se,
        2 * scipy_stats.t.sf(abs(d) / se, df),
        scipy_stats.t.sf((d - 0.05) / se, df),
    )


def hand_bh(p):
    m = len(p)
    order = np.argsort(p)
    ranked = np.asarray(p)[order] * m / np.arange(1, m + 1)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(ranked[::-1])[::-1].clip(max=1.0)
    return adjusted


@pytest.mark.parametrize("seed", range(200))
def test_same_numbers_as_the_hand_written_formulas(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(rng.normal(), rng.uniform(0.1, 2), size=rng.integers(2, 40))
    test = intervals.one_sample(x)
    mean, low, high, p, se = hand_one_sample(x)
    assert (test.interval.value, test.interval.low, test.interval.high, test.p_value, test.se) == pytest.approx(
        (mean, low, high, p, se), rel=1e-9, abs=1e-12
    )
    before, after = rng.normal(0, 1, rng.integers(2, 30)), rng.normal(0.2, 1.5, rng.integers(2, 30))
    for trim in (0.0, 0.2):
        yuen = intervals.welch(before, after, trim)
        d, lo, hi, p_change, p_above = hand_yuen(before, after, trim)
        assert (
            yuen.interval.value,
            yuen.interval.low,
            yuen.interval.high,
            yuen.p_value,
            yuen.p_above(0.05),
        ) == pytest.approx((d, lo, hi, p_change, p_above), rel=1e-9, abs=1e-12)
    p_values = rng.uniform(size=rng.integers(1, 30)) ** 3
    assert intervals.benjamini_hochberg(p_values) == pytest.approx(hand_bh(p_values), rel=1e-12)
