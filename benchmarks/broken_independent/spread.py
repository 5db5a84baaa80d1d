"""Independent corpus: the variance of latency samples in nanoseconds. A strategy declares them:
a base latency anywhere up to 10 s and a jitter of up to 1000 ns around it. The declared samples
sit near zero, where a one-pass formula still holds; far from zero with a small spread it cancels
catastrophically. Compared within 1e-6 relative (and 1e-6 absolute)."""

import math
import statistics

import perflab


def close(expected, actual):
    return math.isclose(expected, actual, rel_tol=1e-6, abs_tol=1e-6)


bench = perflab.Benchmark("spread", description="Population variance of latency samples", compare=close)


@bench.case
def SAMPLES():
    return [120.0, 135.5, 99.0, 101.25, 180.0]


@bench.strategy
def latencies(st):
    base = st.floats(0, 1e10)
    jitter = st.lists(st.floats(-1000, 1000), min_size=2, max_size=30)
    return st.builds(lambda b, js: [b + j for j in js], base, jitter)


@bench.contender(reference=True)
def two_pass(samples):
    """the mean first, then the squared deviations from it"""
    mean = math.fsum(samples) / len(samples)
    return math.fsum((x - mean) ** 2 for x in samples) / len(samples)


@bench.contender
def sum_of_squares(samples):
    """E[x^2] - E[x]^2 in one pass"""
    n = len(samples)
    total = squares = 0.0
    for x in samples:
        total += x
        squares += x * x
    return squares / n - (total / n) ** 2


@bench.contender
def welford(samples):
    """control: Welford's running mean and sum of squared deviations"""
    mean = m2 = 0.0
    for count, x in enumerate(samples, 1):
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
    return m2 / len(samples)


@bench.contender
def pvariance(samples):
    """control: statistics.pvariance (exact fractions)"""
    return statistics.pvariance(samples)
