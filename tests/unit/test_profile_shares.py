"""Per-frame shares with intervals across runs, and Amdahl what-if predictions (checked by simulation)."""

import math
from collections import Counter

import numpy as np
import pytest

from perflab.profile.shares import frame_shares, share_intervals
from perflab.profile.whatif import WhatIfError, matches, parse_what_if, predict


def test_self_and_total_shares_count_each_sample_once():
    runs = [Counter({("a", "b"): 30, ("a",): 10, ("c",): 50, ("a", "a"): 10})]  # a recursive once
    shares = {s.frame: s for s in frame_shares(runs)}
    assert shares["a"].total.value == pytest.approx(0.5)  # 30 + 10 + 10 samples, not 60
    assert shares["a"].self.value == pytest.approx(0.2)
    assert shares["b"].self.value == pytest.approx(0.3)
    assert shares["c"].total.value == pytest.approx(0.5)


def test_samples_in_measured_region_itself_are_a_frame_of_their_own():
    shares = {s.frame: s for s in frame_shares([Counter({(): 5, ("f",): 15})])}
    assert shares["[measured_region]"].self.value == pytest.approx(0.25)


def _simulate_runs(rng, true_share, runs, samples, process_sd):
    """Runs whose own true share varies (fresh processes differ), each sampled multinomially."""
    shares = np.clip(rng.normal(true_share, process_sd, size=runs), 0, 1)
    return np.array([rng.binomial(samples, s) for s in shares], dtype=float), np.full(runs, float(samples))


@pytest.mark.parametrize("true_share, process_sd", [(0.30, 0.03), (0.05, 0.0), (0.02, 0.005)])
def test_share_intervals_cover_the_true_share_about_95_percent_of_the_time(true_share, process_sd):
    rng = np.random.default_rng(20261121)
    trials, covered = 600, 0
    for _ in range(trials):
        counts, samples = _simulate_runs(rng, true_share, runs=5, samples=400, process_sd=process_sd)
        _, low, high = share_intervals(counts[None, :], samples)
        covered += low[0] <= true_share <= high[0]
    assert 0.92 <= covered / trials <= 0.995


def test_a_frame_never_sampled_still_gets_an_upper_bound():
    share, low, high = share_intervals(np.zeros((1, 5)), np.full(5, 400.0))
    assert share[0] == 0 and low[0] == 0 and 0 < high[0] < 0.01


@pytest.mark.parametrize(
    "text, expected",
    [
        ("f=2x", ("f", 2.0)),
        ("*escape*=1.5", ("*escape*", 1.5)),
        ("a=b=3x", ("a=b", 3.0)),
        ("slow=inf", ("slow", math.inf)),
    ],
)
def test_what_if_syntax(text, expected):
    assert parse_what_if(text) == expected


@pytest.mark.parametrize("text", ["f", "=2x", "f=0x", "f=-1", "f=fast"])
def test_malformed_what_if_is_refused(text):
    with pytest.raises(WhatIfError, match="expected FRAME=Kx"):
        parse_what_if(text)


def test_what_if_follows_amdahls_law():
    runs = [Counter({("op (b.py:1)", "hot (b.py:5)"): 50, ("op (b.py:1)",): 50})] * 4
    result = predict(runs, "hot", 2.0)
    assert result.share.value == pytest.approx(0.5)
    assert result.speedup.value == pytest.approx(1 / (0.5 + 0.25))
    assert result.speedup.low <= result.speedup.value <= result.speedup.high
    assert predict(runs, "hot", math.inf).speedup.value == pytest.approx(2.0)


def test_what_if_patterns_match_names_and_labels():
    assert matches("encoder_*", "encoder_call (_json.c)")
    assert matches("encoder_call (_json.c)", "encoder_call (_json.c)")
    assert not matches("encoder", "encoder_call (_json.c)")


def test_unknown_frame_in_what_if_suggests_close_names():
    runs = [Counter({("encoder_call (_json.c)",): 3})]
    with pytest.raises(WhatIfError, match="no frame of the profile matches.*did you mean encoder_call"):
        predict(runs, "encoder_cal", 2.0)
