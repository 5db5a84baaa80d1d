"""The in-process stopping rule and intervals of the pytest plugin, by simulation with fixed seeds."""

import numpy as np
import pytest

from perflab.pytest_plugin.sampling import estimate


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_median_interval_covers_the_true_median(rho):
    """200 simulated benchmarks of 100 values (lognormal noise, AR(1) correlated with ``rho``):
    the 95% interval of the median holds the true median about 95% of the time."""
    rng = np.random.default_rng(20261122)
    true_median, hits = 1e-6, 0
    for _ in range(200):
        noise = np.empty(100)
        noise[0] = rng.normal()
        for i in range(1, 100):
            noise[i] = rho * noise[i - 1] + np.sqrt(1 - rho**2) * rng.normal()
        values = list(true_median * np.exp(0.1 * noise))
        hits += estimate(values).median.contains(true_median)
    assert 0.88 <= hits / 200 <= 0.995
