"""Broken optimization of a median: sorting the caller's list in place.

``xs.sort()`` is faster than ``sorted(xs)`` (no copy), every output is right, and the caller's list
is changed. In a timing loop every call after the first sorts an already sorted list, so the
speedup is of a different, easier input. Correct alternatives leave the list alone.
"""

import heapq
import statistics

import perflab

bench = perflab.Benchmark("median", description="The upper median of a list of floats")


@bench.case
def FLOATS():
    import random

    rng = random.Random(1)
    return [rng.random() for _ in range(20_000)]


@bench.strategy
def floats(st):
    return st.lists(st.floats(allow_nan=False), min_size=1, max_size=50)


@bench.contender(reference=True)
def sorted_copy(xs):
    """sorted(xs)[len(xs) // 2]"""
    return sorted(xs)[len(xs) // 2]


@bench.contender
def sort_in_place(xs):
    """xs.sort(), then the middle element: the caller's list is sorted as a side effect."""
    xs.sort()
    return xs[len(xs) // 2]


@bench.contender
def median_high(xs):
    """control: statistics.median_high"""
    return statistics.median_high(xs)


@bench.contender
def partial_heap(xs):
    """control: the largest of the len // 2 + 1 smallest (heapq.nsmallest)"""
    return heapq.nsmallest(len(xs) // 2 + 1, xs)[-1]
