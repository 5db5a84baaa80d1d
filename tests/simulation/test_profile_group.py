"""Profiling the sides of a comparison together (perflab.profile.pairing.profile_group): real
workers and real py-spy; and the pieces that made it faster (samples of no frame, jobs side by side)."""

from collections import Counter

import numpy as np

from perflab.profile.pairing import another_round
from perflab.profile.settings import (
    MAX_ROUNDS_FACTOR,
    ProfileSettings,
)
from perflab.profile.shares import frame_shares, widest_half_width


def _simulated_session(rng, shares, run_sd, settings):
    """The rounds profile_group runs for one side, with runs drawn from ``shares`` (frames' true
    self shares, one stack each) whose per-run shares vary by ``run_sd`` (fresh processes differ)."""
    per_round = settings.samples // settings.min_runs
    frames = [(f"f{i}",) for i in range(len(shares))]
    runs = []
    while another_round(len(runs), settings, [widest_half_width(runs)] if runs else []):
        drawn = np.clip(rng.normal(shares, run_sd), 1e-6, None)
        counts = rng.multinomial(per_round, drawn / drawn.sum())
        runs.append(Counter({frame: int(c) for frame, c in zip(frames, counts) if c}))
    return runs


def test_the_adaptive_budget_stops_at_the_minimum_when_runs_agree_and_goes_on_when_they_do_not():
    settings = ProfileSettings(samples=2000, min_runs=5)
    shares = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(20261122)
    quiet = [len(_simulated_session(rng, shares, 0.0, settings)) for _ in range(200)]
    busy = [len(_simulated_session(rng, shares, 0.06, settings)) for _ in range(200)]
    assert np.mean(np.array(quiet) == 5) >= 0.9  # sampling alone: the promised precision in 2,000 samples
    assert np.mean(np.array(busy) > 5) >= 0.9 and max(busy) <= 5 * MAX_ROUNDS_FACTOR
    fixed = ProfileSettings(samples=2000, min_runs=5, adaptive_rounds=False)
    assert len(_simulated_session(rng, shares, 0.06, fixed)) == 5


def test_stopping_when_precise_keeps_the_intervals_covering_the_true_shares():
    # Optional stopping must not cost coverage: the intervals of the session as it stopped.
    settings = ProfileSettings(samples=2000, min_runs=5)
    shares = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(7)
    covered = total = precise = 0
    for _ in range(300):
        runs = _simulated_session(rng, shares, 0.03, settings)
        precise += widest_half_width(runs) <= settings.share_precision
        for share in frame_shares(runs):
            truth = shares[int(share.frame[1:])]
            covered += share.self.low <= truth <= share.self.high
            total += 1
    assert covered / total >= 0.93
    assert precise / 300 >= 0.9  # reached the promised precision within the round limit
