"""The stopping rule on the answer (perflab.measure.stopping, issue 40) keeps its error rates
however early it stops, by simulation with fixed seeds.

Per-round log ratios are drawn from the shapes a busy machine gives them (normal; heavy-tailed,
Student t with 3 df; and contaminated: one round in ten off by +-20%, a process that ran in a
slow state), and fed round by round to the runner's own comparison and rule
(``estimates.compare_round_logs`` with anytime intervals, ``stopping.decided``), exactly as the
runner does after every round; the budget is a round count. Then:

- A/A (no difference): at most 1% of 2,000 comparisons end in "faster" or "slower" (``--alpha``);
- every interval reported, at whatever round the rule stopped, covers the true ratio >= 95%;
- a 5% difference is still found (power >= 80% within the budget);
- and through the runner's worker seam, real runs of scripted workers stop on their answer
  and agree with the rule.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.scripted_workers import QUICK, Lab, noisy

from perflab.analysis import estimates
from perflab.measure import stopping
from perflab.measure.settings import Settings
from perflab.results.quantities import NO_DIFFERENCE

SETTINGS = Settings()  # the defaults: answered, precision 1%, alpha 1%, min-effect 1%, 5 rounds at least
BUDGET = 60  # rounds


def round_logs(rng: np.random.Generator, shape: str, spread: float, size: int) -> np.ndarray:
    if shape == "normal":
        return rng.normal(0, spread, size)
    if shape == "heavy":
        return rng.standard_t(3, size) * spread / math.sqrt(3)
    noise = rng.normal(0, spread, size)
    slow = rng.random(size) < 0.1
    return noise + slow * rng.choice([-0.2, 0.2], size)


def stopped(logs: np.ndarray) -> tuple[int, estimates.Comparison]:
    """The round at which the rule stops on these logs, and the comparison it then reports."""
    for n in range(1, len(logs) + 1):
        comparison = estimates.compare_round_logs(logs[:n], anytime=True)
        if n >= SETTINGS.min_rounds and (
            comparison.ratio.relative_half_width <= SETTINGS.precision or stopping.decided(comparison, SETTINGS, 1)
        ):
            return n, comparison
    return len(logs), comparison


def draw(seed: int, true_log: float) -> tuple[int, estimates.Comparison]:
    rng = np.random.default_rng(seed)
    shape = ("normal", "heavy", "contaminated")[seed % 3]
    spread = (0.003, 0.01, 0.03)[seed // 3 % 3]
    return stopped(true_log + round_logs(rng, shape, spread, BUDGET))


def verdict(comparison: estimates.Comparison) -> str:
    return estimates.verdict(comparison.ratio.value, comparison.p_value, SETTINGS.alpha, SETTINGS.min_effect)


def test_identical_code_is_called_faster_or_slower_at_most_once_in_a_hundred():
    outcomes = [draw(seed, 0.0) for seed in range(2000)]
    false = sum(verdict(comparison) != NO_DIFFERENCE for _, comparison in outcomes)
    covered = sum(comparison.ratio.contains(1.0) for _, comparison in outcomes)
    assert false / len(outcomes) <= 0.01
    assert covered / len(outcomes) >= 0.95
    # It stopped at many different rounds (the guarantee is for each of them, not for one n).
    assert len({n for n, _ in outcomes}) >= 10


@pytest.mark.parametrize("true_ratio", [15.0, 2.0, 1.2, 1.05, 1.02])
def test_the_interval_at_the_stopping_round_covers_the_true_ratio(true_ratio):
    outcomes = [draw(seed, math.log(true_ratio)) for seed in range(600)]
    covered = sum(comparison.ratio.contains(true_ratio) for _, comparison in outcomes)
    assert covered / len(outcomes) >= 0.95
    wrong_way = sum(verdict(comparison) == "faster" for _, comparison in outcomes)
    assert wrong_way == 0


def test_large_differences_are_decided_in_a_few_rounds_and_a_five_percent_one_is_still_found():
    rounds = {ratio: [draw(seed, math.log(ratio))[0] for seed in range(300)] for ratio in (15.0, 2.0)}
    assert np.median(rounds[15.0]) <= 8 and np.median(rounds[2.0]) <= 10
    found = [verdict(draw(seed, math.log(1.05))[1]) == "slower" for seed in range(600)]
    assert np.mean(found) >= 0.8


@pytest.mark.usefixtures("no_processes")
def test_runs_of_scripted_workers_stop_on_their_answer_and_say_why():
    """100 A/A runs and 50 runs of a 1.5x difference through the runner (its rounds, pairing and
    medians of pairs), on noisy scripted workers: no false verdict, and the difference decided."""
    settings = Settings(max_time=1.0, **QUICK)  # fake seconds: about 40 rounds of 1 us values
    aa = [Lab(noisy(0.3, seed=seed)).run(settings, ["x"], ["a", "b"]) for seed in range(100)]
    assert sum(result.comparisons[0].verdict != NO_DIFFERENCE for result in aa) <= 1
    assert sum(result.comparisons[0].comparison.ratio.contains(1.0) for result in aa) >= 95
    ab = [Lab(noisy(0.1, seed=seed, times={"b": 1.5e-6})).run(settings, ["x"], ["a", "b"]) for seed in range(50)]
    assert all(result.metadata["stopped"]["x"]["why"] == "decided" for result in ab)
    assert all(result.comparisons[0].verdict == "slower" for result in ab)
    assert sum(result.comparisons[0].comparison.ratio.contains(1.5) for result in ab) >= 47
