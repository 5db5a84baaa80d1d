"""The statistics, checked by simulation with fixed seeds: interval coverage, false-positive
rates under the null, power against a real difference, and FDR control."""

import math

import numpy as np
import pytest
from support.estimates_shared import hierarchical_processes, paired_rounds

from perflab.analysis import estimates, intervals


def test_intervals_treat_the_process_not_the_value_as_independent():
    """With strong process effects, a value-level interval would be far too narrow."""
    rng = np.random.default_rng(7)
    data = hierarchical_processes(rng, 8, 200, between=0.10, within=0.01)
    cell = estimates.estimate_cell(data)
    process_spread = np.std([np.log(np.median(p)) for p in data], ddof=1) / math.sqrt(8)
    assert cell.median.relative_half_width > 1.5 * process_spread


def test_intervals_of_times_stay_positive_with_two_processes():
    cell = estimates.estimate_cell([[1e-6] * 5, [9e-6] * 5])
    assert 0 < cell.median.low < cell.median.value < cell.median.high
    assert cell.mean.low > 0


@pytest.mark.parametrize("processes, values", [(2, 1), (3, 5), (8, 20), (25, 7)])
def test_bootstrap_medians_are_numpys_medians_of_each_replicate(processes, values):
    """Each replicate's median from one sort and running counts is numpy's median of the values it
    picked, bit for bit: odd and even counts, ties (rounded values) and a process picked many times."""
    rng = np.random.default_rng(processes)
    matrix = np.round(np.exp(rng.normal(0, 0.05, (processes, values))), 3)
    chosen = rng.integers(0, processes, size=(300, processes))
    expected = np.median(matrix[chosen].reshape(300, -1), axis=1)
    assert np.array_equal(estimates._bootstrap_medians(matrix, chosen), expected)


def test_a_single_process_has_no_interval():
    cell = estimates.estimate_cell([[1.0, 1.1, 0.9]])
    assert cell.median.value == 1.0
    assert math.isinf(cell.median.relative_half_width)


def test_outliers_are_counted_not_dropped():
    values = [[1.0, 1.01, 0.99, 1.02, 0.98] * 2 + [50.0], [1.0, 1.01, 0.99, 1.02, 0.98] * 2]
    cell = estimates.estimate_cell(values)
    assert cell.outlier_values == 1
    assert cell.values == 21


def test_paired_ratio_interval_covers_the_true_ratio():
    rng = np.random.default_rng(11)
    trials = 400
    covered = sum(estimates.compare_paired(*paired_rounds(rng, 10, 0.8)).ratio.contains(0.8) for _ in range(trials))
    assert 0.92 <= covered / trials <= 0.98


def test_false_positive_rate_of_verdicts_under_the_null():
    """A/A: identical contenders must rarely be called faster or slower."""
    rng = np.random.default_rng(3)
    trials = 600
    significant = called = 0
    for _ in range(trials):
        comparison = estimates.compare_paired(*paired_rounds(rng, 8, 1.0))
        significant += comparison.p_value <= 0.05
        called += estimates.verdict(comparison.ratio.value, comparison.p_value, 0.01, 0.01) != estimates.NO_DIFFERENCE
    # 600 trials: the test is calibrated (about 5% at alpha 0.05) and perflab's default verdict
    # level, alpha 0.01 plus the minimum effect, calls about 1% or fewer.
    assert 0.03 <= significant / trials <= 0.075
    assert called / trials <= 0.02


def test_power_against_a_five_percent_slowdown():
    rng = np.random.default_rng(5)
    trials = 200
    detected = 0
    for _ in range(trials):
        comparison = estimates.compare_paired(*paired_rounds(rng, 8, 1.05))
        detected += estimates.verdict(comparison.ratio.value, comparison.p_value, 0.01, 0.01) == estimates.SLOWER
    assert detected / trials >= 0.8  # with only 8 rounds; the runner keeps going until precise


def test_pairs_cancel_machine_state_changes():
    """Slow episodes hit both halves of a pair: the paired interval stays narrow despite them."""
    rng = np.random.default_rng(9)
    comparison = estimates.compare_paired(*paired_rounds(rng, 10, 1.0, state_jump=0.65))
    assert comparison.ratio.relative_half_width < 0.02


def test_benjamini_hochberg_controls_the_false_discovery_rate():
    rng = np.random.default_rng(13)
    trials, m, true_effects = 400, 20, 5
    false_discovery_proportions = []
    for _ in range(trials):
        null_p = rng.uniform(size=m - true_effects)
        real_p = rng.uniform(size=true_effects) * 1e-4
        adjusted = intervals.benjamini_hochberg(list(null_p) + list(real_p))
        rejected = [p <= 0.05 for p in adjusted]
        false = sum(rejected[: m - true_effects])
        false_discovery_proportions.append(false / max(1, sum(rejected)))
    assert np.mean(false_discovery_proportions) <= 0.05


def test_benjamini_hochberg_matches_the_textbook_example():
    adjusted = intervals.benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.02, 0.04, 0.04, 0.02])


@pytest.mark.parametrize(
    "ratio, p, expected",
    [
        (0.5, 0.001, estimates.FASTER),
        (1.5, 0.001, estimates.SLOWER),
        (0.5, 0.2, estimates.NO_DIFFERENCE),
        (1.005, 0.0001, estimates.NO_DIFFERENCE),
    ],
)
def test_verdict_needs_significance_and_a_minimum_effect(ratio, p, expected):
    assert estimates.verdict(ratio, p, alpha=0.05, min_effect=0.01) == expected
