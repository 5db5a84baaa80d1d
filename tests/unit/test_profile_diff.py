"""Differential profiles: time per call (not sample counts), intervals, the sentence, refusals; the report's escaping."""

import math

import numpy as np

from perflab.profile.diff import welch_interval


def test_one_run_has_no_interval():
    assert math.isinf(welch_interval(np.array([1.0]), np.array([2.0, 3.0])).high)
