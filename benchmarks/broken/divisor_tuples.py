"""Correct caches and shortcuts of a function returning an immutable tuple (controls)."""

import functools

import perflab

bench = perflab.Benchmark("divisor_tuples", description="The divisors of n, as a tuple")


@bench.case
def N360():
    return 360


@bench.case
def N97():
    return 97


@bench.strategy
def sizes(st):
    return st.integers(min_value=1, max_value=5_000)


def divisors(n):
    return tuple(d for d in range(1, n + 1) if n % d == 0)


@bench.contender(reference=True)
def computed(n):
    """A new tuple on every call."""
    return divisors(n)


_cached = functools.lru_cache(maxsize=None)(divisors)


@bench.contender
def lru_tuple(n):
    """control: lru_cache returning an immutable tuple"""
    return _cached(n)


@bench.contender
def sqrt_pairs(n):
    """control: trial division up to the square root, pairs d and n // d"""
    small, large = [], []
    d = 1
    while d * d <= n:
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
        d += 1
    return tuple(small + large[::-1])
