"""Correct optimizations that the equivalence checks must leave alone (issue 12's controls)."""
import functools

import perflab

bench = perflab.Benchmark("divisor_tuples")


@bench.case
def N360():
    return 360


@bench.case
def N97():
    return 97


def divisors(n):
    return tuple(d for d in range(1, n + 1) if n % d == 0)


@bench.contender
def computed(n):
    return divisors(n)


@bench.contender(description="control: lru_cache returning an immutable tuple")
def lru_tuple(n):
    return _cached(n)


_cached = functools.lru_cache(maxsize=None)(divisors)


@bench.contender(description="control: only up to the square root")
def sqrt_pairs(n):
    if n < 1:
        return ()
    small, large = [], []
    d = 1
    while d * d <= n:
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
        d += 1
    return tuple(small + large[::-1])
