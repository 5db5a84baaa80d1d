"""Fresh corpus: population variance of sensor readings, to a relative 1e-6. The one-pass
formula (sum of squares minus square of the mean) cancels catastrophically for a large offset,
and Welford's update rounds at every step; declared readings are small numbers."""

import math
import statistics

import perflab


def close(expected, actual):
    return expected == actual or math.isclose(expected, actual, rel_tol=1e-6, abs_tol=1e-9)


bench = perflab.Benchmark("variance", compare=close, description="Population variance, to 1e-6")


@bench.case
def READINGS():
    return [1.5, 2.25, 3.0, 2.75, 1.0, 2.0, 1.75]


@bench.contender(reference=True)
def exact(xs):
    """statistics.pvariance: exact rational arithmetic, rounded once"""
    if not xs:
        raise ValueError("no readings")
    return float(statistics.pvariance(xs))


@bench.contender
def one_pass(xs):
    """E[x^2] - E[x]^2 in one pass: cancels for large offsets"""
    if not xs:
        raise ValueError("no readings")
    n = len(xs)
    return max(sum(x * x for x in xs) / n - (sum(xs) / n) ** 2, 0.0)


@bench.contender
def shifted(xs):
    """control: one pass over the data shifted by its first reading (math.fsum)"""
    if not xs:
        raise ValueError("no readings")
    shift = xs[0]
    deviations = [x - shift for x in xs]
    total = math.fsum(deviations)
    return max((math.fsum(d * d for d in deviations) - total * total / len(xs)) / len(xs), 0.0)


@bench.contender
def welford(xs):
    """Welford's online update: stable, but its rounding at every step misses 1e-6 for a large offset"""
    if not xs:
        raise ValueError("no readings")
    mean, m2 = 0.0, 0.0
    for count, x in enumerate(xs, 1):
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
    return m2 / len(xs)
