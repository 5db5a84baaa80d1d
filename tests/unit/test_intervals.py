"""perflab.analysis.intervals gives what perflab's hand-written t intervals and corrections gave
before they were replaced by scipy.stats: the same numbers, on many random inputs (fixed seeds)."""

import math

import numpy as np

from perflab.analysis import intervals


def test_degenerate_inputs_keep_perflabs_answers():
    assert math.isinf(intervals.one_sample([1.0]).interval.high)
    flat = intervals.one_sample([2.0, 2.0, 2.0])
    assert (flat.interval.low, flat.interval.high, flat.p_value, flat.se) == (2.0, 2.0, 0.0, 0.0)
    assert flat.p_above(1.0) == 0.0 and flat.p_above(3.0) == 1.0
    assert math.isinf(intervals.welch(np.array([1.0]), np.array([2.0, 3.0])).interval.high)
    same = intervals.welch(np.array([1.0, 1.0, 1.0]), np.array([1.0, 1.0]))
    assert (same.interval.low, same.interval.high, same.p_value) == (0.0, 0.0, 1.0)
    assert intervals.benjamini_hochberg([]) == []


def test_t_intervals_tests_and_fdr_agree_with_scipy_stats_on_random_inputs():
    """The t maths on scipy.special and the hand-written Benjamini-Hochberg step-up give
    scipy.stats' numbers (its ttest_1samp, t.sf, t.ppf, false_discovery_control)."""
    from scipy import stats

    rng = np.random.default_rng(20261124)
    for _ in range(300):
        n = int(rng.integers(2, 60))
        values = rng.normal(rng.normal(0, 0.05), rng.uniform(0.001, 0.2), n)
        mine, theirs = intervals.one_sample(values), stats.ttest_1samp(values, 0.0)
        bounds = theirs.confidence_interval(0.95)
        assert math.isclose(mine.interval.low, bounds.low, rel_tol=1e-9, abs_tol=1e-15)
        assert math.isclose(mine.interval.high, bounds.high, rel_tol=1e-9, abs_tol=1e-15)
        assert math.isclose(mine.p_value, theirs.pvalue, rel_tol=1e-9, abs_tol=1e-300)
        bound = float(rng.normal(0, 0.05))
        expected = stats.t.sf((mine.interval.value - bound) / mine.se, n - 1)
        assert math.isclose(mine.p_above(bound), expected, rel_tol=1e-9, abs_tol=1e-300)
        p_values = rng.uniform(0, 1, int(rng.integers(1, 30))) ** rng.uniform(0.5, 4)
        adjusted = stats.false_discovery_control(p_values, method="bh")
        assert np.allclose(intervals.benjamini_hochberg(list(p_values)), adjusted, rtol=1e-12, atol=0)
    for df in (1, 2.5, 7, 40, 1000):
        for probability in (0.8, 0.975, 0.9995):
            assert math.isclose(intervals.t_quantile(df, probability), stats.t.ppf(probability, df), rel_tol=1e-12)
