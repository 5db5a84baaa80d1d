"""The statistics, checked by simulation with fixed seeds: interval coverage, false-positive
rates under the null, power against a real difference, and FDR control."""

import math

import numpy as np
import pytest
from support.estimates_shared import hierarchical_processes, paired_rounds

from perflab.analysis import estimates


@pytest.mark.parametrize("processes", [5, 10, 25])
def test_median_and_mean_intervals_cover_at_about_95_percent(processes):
    rng = np.random.default_rng(processes)
    trials, between, within = 300, 0.05, 0.03
    true_median = 1e-6
    true_mean = 1e-6 * math.exp((between**2 + within**2) / 2)
    covered_median = covered_mean = 0
    for trial in range(trials):
        data = hierarchical_processes(rng, processes, 20, between=between, within=within)
        cell = estimates.estimate_cell(data, seed=trial, resamples=800)
        covered_median += cell.median.contains(true_median)
        covered_mean += cell.mean.contains(true_mean)
    # 300 trials: a true 95% coverage lands in [0.92, 0.98] with probability > 0.99.
    assert 0.91 <= covered_median / trials <= 0.99
    assert 0.91 <= covered_mean / trials <= 0.99


def test_geometric_mean_interval_covers_the_true_mean_ratio():
    rng = np.random.default_rng(17)
    trials = 300
    ratios = [0.5, 0.8, 1.25]
    true_geomean = math.exp(np.mean(np.log(ratios)))
    covered = 0
    for _ in range(trials):
        comparisons = [estimates.compare_paired(*paired_rounds(rng, 6, r)) for r in ratios]
        covered += estimates.geometric_mean(comparisons).contains(true_geomean)
    assert 0.92 <= covered / trials <= 0.99


@pytest.mark.parametrize("processes", [3, 6, 20])
def test_the_ratio_of_two_runs_medians_covers_the_truth_and_rarely_calls_like_runs_different(processes):
    """The web's comparison of two runs measured at different times (``ratio_of_medians``)."""
    rng = np.random.default_rng(100 + processes)
    trials = 300
    covered = called_different = 0
    for trial in range(trials):
        before = hierarchical_processes(rng, processes, 20)
        after = hierarchical_processes(rng, processes, 20, centre=1.25e-6)
        alike = hierarchical_processes(rng, processes, 20)
        covered += estimates.ratio_of_medians(before, after, seed=trial, resamples=800).ratio.contains(1.25)
        called_different += estimates.ratio_of_medians(before, alike, seed=trial, resamples=800).p_value <= 0.05
    assert 0.91 <= covered / trials <= 0.99
    assert called_different / trials <= 0.08
