"""Independent corpus: how many sorted event times fall within 300 s of the first one. A strategy
declares the inputs: sorted times, at least one."""

import bisect

import numpy

import perflab

bench = perflab.Benchmark("spans", description="Events within 300 s of the first")


@bench.case
def BURST():
    return [100, 150, 320, 390, 1000, 5000]


@bench.strategy
def sorted_times(st):
    return st.lists(st.integers(0, 10**6), min_size=1, max_size=30).map(sorted)


@bench.contender(reference=True)
def scan(times):
    """count t - first <= 300"""
    return sum(1 for t in times if t - times[0] <= 300)


@bench.contender
def bisect_left_end(times):
    """bisect_left at first + 300: an event exactly 300 s later is left out"""
    return bisect.bisect_left(times, times[0] + 300)


@bench.contender
def bisect_right_end(times):
    """control: bisect_right at first + 300"""
    return bisect.bisect_right(times, times[0] + 300)


@bench.contender
def numpy_searchsorted(times):
    """control: numpy.searchsorted on int64 (domain only: the strategy's times fit int64)"""
    return int(numpy.searchsorted(numpy.asarray(times, dtype=numpy.int64), times[0] + 300, side="right"))
