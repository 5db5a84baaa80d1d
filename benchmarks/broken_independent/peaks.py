"""Independent corpus: the peak of sensor readings, where a failed read is NaN. The declared
readings hold NaN only in the middle; the built-in max answers by position around NaN."""

import functools
import math

import perflab

bench = perflab.Benchmark("peaks", description="The largest reading, as max() gives it")


@bench.case
def DAY():
    return [2.5, math.nan, 7.0, 1.0, 3.5]


@bench.case
def CALM():
    return [0.5, 0.25, 0.75]


@bench.contender(reference=True)
def builtin_max(readings):
    """max(readings)"""
    return max(readings)


@bench.contender
def from_minus_infinity(readings):
    """a loop started at -inf: a NaN in first place is skipped where max() keeps it"""
    peak = -math.inf
    for value in readings:
        if value > peak:
            peak = value
    return peak


@bench.contender
def last_of_sorted(readings):
    """sorted()[-1]: NaN breaks the order, and the last item is not max()'s answer"""
    return sorted(readings)[-1]


@bench.contender
def reduce_keep_first(readings):
    """control: functools.reduce keeping the first of equal or unordered values, as max() does"""
    return functools.reduce(lambda peak, value: value if value > peak else peak, readings)


@bench.contender
def checked_length(readings):
    """control: len() checked first (lists only: a generator, which no case declares, has no len())"""
    if len(readings) == 0:
        raise ValueError("max() arg is an empty sequence")
    return max(readings)
