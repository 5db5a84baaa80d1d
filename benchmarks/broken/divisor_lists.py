"""Broken optimization: functools.lru_cache around a function that returns a list.

Every answer is equal, but every caller gets the same list object: a caller that appends to its
result changes what every later caller gets.
"""

import functools

import perflab

bench = perflab.Benchmark("divisor_lists", description="The divisors of n, as a list")


@bench.case
def N360():
    return 360


@bench.strategy
def sizes(st):
    return st.integers(min_value=1, max_value=5_000)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


@bench.contender(reference=True)
def computed(n):
    """A new list on every call."""
    return divisors(n)


_cached = functools.lru_cache(maxsize=None)(divisors)


@bench.contender
def lru_list(n):
    """lru_cache around divisors: one shared list per n."""
    return _cached(n)
