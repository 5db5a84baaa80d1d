"""The floor ``perflab qualify`` states, checked by simulation with fixed seeds: one trial is an A/A
run (the qualification) and then a paired gate run with a slowdown injected relative to the floor
that A/A stated, both through perflab's own estimates, stopping rule and gate verdicts. The same
for the budget projected beside the floor (a smaller change, at the rounds and precision check
would be given)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from perflab.analysis import detectable, estimates, gate
from perflab.measure import stopping
from perflab.measure.settings import Settings
from perflab.results.quantities import Comparison

ALPHA, MIN_EFFECT, THRESHOLD, PRECISION = 0.01, 0.01, 0.05, 0.01  # perflab check's defaults
VALUES = 20  # values per worker and round, as the runner asks for
MIN_ROUNDS = 5
# The rule on the answer at its defaults: qualify's A/A, and check --against's (with its threshold's question).
QUALIFY_AA = Settings(precision=PRECISION, alpha=ALPHA, min_effect=MIN_EFFECT)
ANSWERED = Settings(precision=PRECISION, alpha=ALPHA, min_effect=MIN_EFFECT, regression_threshold=THRESHOLD)

Noise = Callable[[np.random.Generator], float]
# A slowdown is detected when the gate calls it slower: within the threshold, or beyond it.
DETECTED = (gate.SLOWER_WITHIN_THRESHOLD, gate.REGRESSION)


def gaussian(sigma: float) -> Noise:
    return lambda rng: sigma * rng.normal()


def heavy_tailed(sigma: float) -> Noise:
    """Student t with 3 degrees of freedom scaled to standard deviation ``sigma``: now and then a
    round whose two workers landed on very different states of the machine."""
    return lambda rng: sigma * rng.standard_t(3) / math.sqrt(3)


def measured(
    rng: np.random.Generator,
    log_change: float,
    noise: Noise,
    max_rounds: int,
    precision: float = PRECISION,
    anytime: bool = False,
    gate_run: bool = False,
    cells: int = 1,
) -> Comparison:
    """One paired run of one cell: rounds of time-adjacent values (the machine's speed drifts between
    rounds and moves both sides alike), until the ratio's interval is within ``precision`` after
    MIN_ROUNDS rounds, or the budget's ``max_rounds`` rounds are spent (the runner's stopping rule).
    Each round's log ratio is kept as it arrives: estimates.compare_paired of the rounds so far,
    without recomputing the earlier rounds' ratios after every round. ``anytime``: the rule on the
    answer (perflab.measure.stopping) with anytime-valid intervals, as qualify's A/A runs it, and
    with ``gate_run`` as check --against does (its threshold's question too)."""
    round_logs: list[float] = []
    for round_number in range(max_rounds):
        speed = 1e-5 * math.exp(rng.normal(0, 0.2))
        pairs = speed * np.exp(rng.normal(0, 0.01, VALUES))
        shift = log_change + noise(rng)  # this round's processes: layout, hash seed, CPU state
        reference = list(pairs * np.exp(rng.normal(0, 0.005, VALUES)))
        contender = list(pairs * math.exp(shift) * np.exp(rng.normal(0, 0.005, VALUES)))
        round_logs.append(estimates.round_log_ratio(reference, contender))
        so_far = estimates.compare_round_logs(round_logs, anytime)
        answered = anytime and stopping.decided(so_far, ANSWERED if gate_run else QUALIFY_AA, cells)
        if round_number + 1 >= MIN_ROUNDS and (precise(so_far, precision) or answered):
            break
    return estimates.compare_round_logs(round_logs, anytime)


def precise(comparison: Comparison, precision: float) -> bool:
    return comparison.ratio.relative_half_width <= precision


def gate_verdicts(
    rng: np.random.Generator,
    log_changes: list[float],
    noise: Noise,
    max_rounds: int,
    precision: float = PRECISION,
    anytime: bool = False,
) -> list[str]:
    """The gate over several cells measured now, one of them perhaps changed."""
    compared = [
        gate.paired_comparison(
            measured(rng, change, noise, max_rounds, precision, anytime, gate_run=True, cells=len(log_changes)),
            THRESHOLD,
        )
        for change in log_changes
    ]
    return gate.decide(compared, ALPHA, MIN_EFFECT)


def qualified(rng: np.random.Generator, noise: Noise, max_rounds: int, cells: int) -> detectable.Qualification:
    """What ``perflab qualify`` stores after one A/A run per cell, a round taking one second."""
    runs = [measured(rng, 0.0, noise, max_rounds) for _ in range(cells)]
    floors = [detectable.floor_of(f"C{i}", "x", aa, ALPHA, MIN_EFFECT, cells, aa.pairs) for i, aa in enumerate(runs)]
    return detectable.Qualification("bench", {}, max_rounds, ALPHA, MIN_EFFECT, floors)


def floor_of(rng: np.random.Generator, noise: Noise, max_rounds: int, cells: int, anytime: bool = False) -> float:
    """What ``perflab qualify`` states after one A/A run: the smallest ratio detected with 80% power."""
    aa = measured(rng, 0.0, noise, max_rounds, anytime=anytime, cells=cells)
    threshold = THRESHOLD if anytime else None  # qualify --threshold: at its defaults check stops on it
    return detectable.floor_of("C", "x", aa, ALPHA, MIN_EFFECT, cells, aa.pairs, threshold).change


def detection_rate(
    noise: Noise, max_rounds: int, scale: float, trials: int, seed: int, cells: int = 1, anytime: bool = False
) -> tuple[float, float]:
    """Share of trials whose gate calls a slowdown of ``floor ** scale`` (on a log scale: 1.05 is
    5% beyond the floor) "slower", the floor taken from the trial's own A/A run; and the median floor."""
    rng = np.random.default_rng(seed)
    detected, floors = 0, []
    for _ in range(trials):
        floor = floor_of(rng, noise, max_rounds, cells, anytime)
        floors.append(floor)
        changes = [scale * math.log(floor)] + [0.0] * (cells - 1)
        detected += gate_verdicts(rng, changes, noise, max_rounds, anytime=anytime)[0] in DETECTED
    return detected / trials, float(np.median(floors))


SCENARIOS = {
    # 2% per round, a budget of 10 rounds: the budget, not the precision, stops the runs.
    "noisy, budget-bound": (gaussian(0.02), 10, 1),
    # 0.8% per round: the 1% precision is reached after 5-8 rounds.
    "quiet, precision-bound": (gaussian(0.008), 40, 1),
    # Heavy-tailed rounds, 20 of them, and a gate of two cells (the floor is for one change among them).
    "heavy tails, two cells": (heavy_tailed(0.015), 20, 2),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_slowdown_just_above_the_stated_floor_is_detected_at_least_80_percent_of_the_time(scenario):
    noise, max_rounds, cells = SCENARIOS[scenario]
    rate, floor = detection_rate(noise, max_rounds, 1.05, trials=200, seed=11, cells=cells)
    assert floor > 1 + MIN_EFFECT  # the floor says something beyond the minimum effect
    # Asking for 80% of the observed trials (not the binomial bound below a true 80%) holds the
    # floor to what it promises.
    assert rate >= 0.80, f"{scenario}: detected {rate:.0%} just above the floor (median floor {floor:.4f})"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_with_the_rule_on_the_answer_a_slowdown_just_above_its_floor_is_detected_too(scenario):
    """check --against at its defaults stops on the answer with anytime-valid p-values, and qualify's
    A/A (the same rule) states the floor those p-values detect."""
    noise, max_rounds, cells = SCENARIOS[scenario]
    rate, floor = detection_rate(noise, max_rounds, 1.05, trials=200, seed=13, cells=cells, anytime=True)
    assert rate >= 0.80, f"{scenario}: detected {rate:.0%} just above the floor (median floor {floor:.4f})"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_floor_is_not_a_loose_bound_half_of_it_is_missed_often(scenario):
    noise, max_rounds, cells = SCENARIOS[scenario]
    rate, _ = detection_rate(noise, max_rounds, 0.5, trials=100, seed=12, cells=cells)
    assert rate < 0.80, f"{scenario}: detected {rate:.0%} at half the floor"


def projected_detection_rate(
    noise: Noise, max_rounds: int, cells: int, scale: float, trials: int, seed: int
) -> tuple[float, int]:
    """Share of trials whose gate, run at the budget and precision projected beside the floor of the
    trial's own qualification, calls a slowdown of ``projected_change ** scale`` "slower"; and the
    trials without a projection (half their floor within the minimum effect)."""
    rng = np.random.default_rng(seed)
    detected, unprojected = 0, 0
    for _ in range(trials):
        qualification = qualified(rng, noise, max_rounds, cells)
        projection = qualification.projection(qualification.floors[0], THRESHOLD)
        if projection is None:
            unprojected += 1
            continue
        assert projection.change < qualification.floors[0].change
        changes = [scale * math.log(projection.change)] + [0.0] * (cells - 1)
        verdicts = gate_verdicts(rng, changes, noise, int(projection.max_time), projection.precision)
        detected += verdicts[0] in DETECTED
    return detected / (trials - unprojected), unprojected


# The noisy scenarios: floors far enough above the 1% minimum effect that half of them is beyond it.
PROJECTED = ["noisy, budget-bound", "heavy tails, two cells"]


@pytest.mark.parametrize("scenario", PROJECTED)
def test_the_smaller_change_is_detected_at_least_80_percent_of_the_time_at_the_projected_budget(scenario):
    noise, max_rounds, cells = SCENARIOS[scenario]
    rate, unprojected = projected_detection_rate(noise, max_rounds, cells, 1.05, trials=200, seed=14)
    assert unprojected <= 10
    assert rate >= 0.80, f"{scenario}: detected {rate:.0%} just above the projected change"


@pytest.mark.parametrize("scenario", PROJECTED)
def test_the_projected_budget_is_not_a_loose_bound_half_the_change_is_missed_often(scenario):
    noise, max_rounds, cells = SCENARIOS[scenario]
    rate, _ = projected_detection_rate(noise, max_rounds, cells, 0.5, trials=100, seed=15)
    assert rate < 0.80, f"{scenario}: detected {rate:.0%} at half the projected change"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_identical_code_fails_the_gate_at_most_one_percent_of_the_time(scenario):
    noise, max_rounds, cells = SCENARIOS[scenario]
    rng = np.random.default_rng(13)
    trials = 200
    failed = sum(gate.REGRESSION in gate_verdicts(rng, [0.0] * cells, noise, max_rounds) for _ in range(trials))
    assert failed / trials <= 0.01
