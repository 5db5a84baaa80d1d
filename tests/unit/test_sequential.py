"""The anytime-valid interval and p-value (perflab.analysis.sequential) against their definitions:
the closed-form interval is where the mixture likelihood ratio, integrated numerically, reaches
1/alpha; p-value and interval are dual; the interval is wider than the fixed-n t interval by the
factors the module states. (Their coverage and error rates under the stopping rule, by
simulation: tests/simulation/test_sequential_rule.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from perflab.analysis import sequential
from perflab.analysis.intervals import one_sample


def mixture_ratio(x: np.ndarray, null: float) -> float:
    """BF_n(null) from its definition: the likelihood of the data with the mean shifted by
    delta * sigma, delta ~ N(0, 1/rho), sigma under the scale-invariant prior d sigma / sigma,
    over the same with no shift; sigma integrated in closed form, delta numerically."""
    y = x - null
    n, s, v = len(y), y.sum(), (y * y).sum()

    def integrand(delta: float) -> float:
        # integral over u = 1/sigma of u^(n-1) exp(-(u^2 v - 2 delta u s + n delta^2) / 2), relative to delta = 0
        shifted = integrate.quad(
            lambda u: u ** (n - 1) * math.exp(-(u * u * v - 2 * delta * u * s + n * delta**2) / 2), 0, math.inf
        )[0]
        return shifted * stats.norm.pdf(delta, scale=1 / math.sqrt(sequential.RHO))

    unshifted = integrate.quad(lambda u: u ** (n - 1) * math.exp(-u * u * v / 2), 0, math.inf)[0]
    return integrate.quad(integrand, -math.inf, math.inf)[0] / unshifted


@pytest.mark.parametrize("seed", range(4))
def test_the_closed_form_is_the_mixture_likelihood_ratio(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.1, 0.2, size=int(rng.integers(3, 12)))
    for null in (0.0, 0.05, 0.3):
        log_bf = sequential.log_bayes_factor(len(x), float(x.mean()), float(x.std(ddof=1)), null)
        assert math.exp(log_bf) == pytest.approx(mixture_ratio(x, null), rel=1e-5)


@pytest.mark.parametrize("n", [4, 5, 8, 20, 100])
def test_the_interval_bounds_are_where_the_ratio_reaches_one_over_alpha(n):
    rng = np.random.default_rng(n)
    x = rng.normal(0.0, 0.05, size=n)
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    interval = sequential.interval(n, mean, sd)
    for bound in (interval.low, interval.high):
        assert sequential.log_bayes_factor(n, mean, sd, bound) == pytest.approx(math.log(20), rel=1e-9)
    # Inside, the p-value is above 5%; outside, below: the interval and the p-value are dual.
    assert sequential.p_value(n, mean, sd, mean) == 1.0
    assert sequential.p_value(n, mean, sd, interval.high * 0.99 + mean * 0.01) > 0.05
    assert sequential.p_value(n, mean, sd, interval.high + 1e-3) < 0.05


def test_the_interval_is_unbounded_until_enough_rounds_bound_it_then_wider_than_t():
    assert math.isinf(sequential.half_width(1, 0.1)) and math.isinf(sequential.half_width(3, 0.1))
    for n, factor in ((5, 2.10), (10, 1.71), (100, 1.74)):  # the factors the module's docstring states
        t_half = one_sample(np.r_[np.zeros(n - 1), 1.0]).interval
        sd = float(np.std(np.r_[np.zeros(n - 1), 1.0], ddof=1))
        assert sequential.half_width(n, sd) / (t_half.high - t_half.value) == pytest.approx(factor, abs=0.01)


def test_degenerate_inputs_get_the_answers_of_the_t_interval():
    assert sequential.p_value(1, 0.3, 0.0) == 1.0  # one observation says nothing
    assert sequential.p_value(5, 0.0, 0.0) == 1.0  # no spread, at the null
    # No spread, away from it: the strongest evidence n observations can give, (n + rho) / rho
    # to the power n/2 (times the prior's sqrt(rho / (n + rho))), no infinite certainty.
    strongest = ((5 + sequential.RHO) / sequential.RHO) ** 2.5 * math.sqrt(sequential.RHO / (5 + sequential.RHO))
    assert sequential.p_value(5, 0.2, 0.0) == pytest.approx(1 / strongest) and 1 / strongest < 0.01
    assert sequential.interval(5, 0.2, 0.0).low == sequential.interval(5, 0.2, 0.0).high == 0.2


def test_the_one_sided_p_value_rejects_only_above_the_bound():
    assert sequential.p_above(10, -0.5, 0.1, 0.0) == 1.0
    assert sequential.p_above(10, 0.5, 0.1, 0.0) == sequential.p_value(10, 0.5, 0.1, 0.0) < 1e-4
