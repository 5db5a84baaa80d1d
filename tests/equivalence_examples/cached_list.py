"""Issue 12, example 2: lru_cache around a function that returns a list."""
import functools

import perflab

bench = perflab.Benchmark("divisors")


@bench.case
def N360():
    return 360


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


@bench.contender
def computed(n):
    return divisors(n)


@bench.contender
def lru_cached(n):
    return _cached(n)


_cached = functools.lru_cache(maxsize=None)(divisors)
