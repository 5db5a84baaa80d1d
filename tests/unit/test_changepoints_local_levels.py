"""The vectorised local levels of change-point detection equal the per-point medians they replace."""

import numpy as np

from perflab.analysis.changepoints import LOCAL_WINDOW, local_levels


def per_point(y):
    half = LOCAL_WINDOW // 2
    return np.array([np.median(y[i - half : i + half + 1] if i >= half else y[:LOCAL_WINDOW]) for i in range(len(y))])


def test_local_levels_match_the_definition_for_every_length():
    rng = np.random.default_rng(7)
    for n in list(range(1, 30)) + [101, 1000]:
        y = rng.normal(0, 1, n)
        y[n // 2 :] += 3  # a step, and ties below
        y[::7] = 0.5
        assert np.array_equal(local_levels(y), per_point(y)), n
