"""Differential profiles: time per call (not sample counts), intervals, the sentence, refusals; the report's escaping."""

import numpy as np

from perflab.profile.diff import paired_interval, welch_interval


def test_intervals_cover_the_true_difference_about_95_percent():
    rng = np.random.default_rng(7)
    covered = {"welch": 0, "paired": 0}
    trials = 2000
    for _ in range(trials):
        drift = rng.normal(0, 1.0, 6)  # the machine's speed, shared by a round
        a, b = 10 + drift + rng.normal(0, 0.3, 6), 11 + drift + rng.normal(0, 0.3, 6)
        covered["welch"] += welch_interval(a, b).contains(1.0)
        covered["paired"] += paired_interval(a, b).contains(1.0)
    assert 0.93 <= covered["paired"] / trials <= 0.97
    assert covered["welch"] / trials >= 0.93  # valid but wider: it ignores the pairing
