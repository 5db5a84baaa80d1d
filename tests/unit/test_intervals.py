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
