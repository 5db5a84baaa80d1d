"""The CI gate's unpaired comparison, checked by simulation with fixed seeds."""

from __future__ import annotations

import numpy as np
from support.gate_shared import processes

from perflab.analysis import estimates, gate
from perflab.analysis.gate import compare_unpaired


def regression_rate(ratio: float, trials: int = 1000, k: int = 8, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    return (
        sum(
            compare_unpaired(processes(rng, k), processes(rng, k, ratio), 0.05).p_regression <= 0.05
            for _ in range(trials)
        )
        / trials
    )


def paired_regression_rate(ratio: float, trials: int = 1000, rounds: int = 8, seed: int = 0) -> float:
    """Rounds of interleaved values: the machine's speed drifts from round to round and moves both
    sides alike (that is what pairing removes)."""
    rng = np.random.default_rng(seed)
    failed = 0
    for _ in range(trials):
        speed = np.exp(rng.normal(0, 0.2, rounds))
        reference = {r: list(1e-5 * speed[r] * np.exp(rng.normal(0, 0.03, 10))) for r in range(rounds)}
        contender = {r: list(1e-5 * ratio * speed[r] * np.exp(rng.normal(0, 0.03, 10))) for r in range(rounds)}
        failed += gate.paired_comparison(estimates.compare_paired(reference, contender), 0.05).p_regression <= 0.05
    return failed / trials


def test_identical_code_never_fails_the_gate():
    assert regression_rate(1.0) == 0.0


def test_a_slowdown_exactly_at_the_threshold_fails_at_most_alpha_of_the_time():
    # 1000 trials: the binomial 99.9% upper bound for a true rate of 5% is about 7.5%.
    assert regression_rate(1.05) <= 0.075


def test_a_slowdown_well_beyond_the_threshold_is_caught():
    assert regression_rate(1.15, trials=200) >= 0.95


def test_the_ratio_interval_covers_the_truth():
    rng = np.random.default_rng(1)
    covered = sum(
        compare_unpaired(processes(rng, 6), processes(rng, 9, 1.07), 0.05).ratio.contains(1.07) for _ in range(1000)
    )
    assert 0.93 <= covered / 1000 <= 0.97


def test_paired_gate_fails_identical_code_never_and_the_threshold_at_most_alpha():
    assert paired_regression_rate(1.0) == 0.0
    assert paired_regression_rate(1.05) <= 0.075  # binomial 99.9% bound for a true 5%
    assert paired_regression_rate(1.12, trials=200) >= 0.95  # drift of 20% between rounds does not hide it
