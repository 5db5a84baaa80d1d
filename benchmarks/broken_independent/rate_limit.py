"""Independent corpus: a rate limiter over sorted request times (seconds). At most LIMIT requests
are accepted in any WINDOW seconds; the declared times are never exactly WINDOW apart."""

import bisect
from collections import deque

import numpy

import perflab

bench = perflab.Benchmark("rate_limit", description="Requests accepted by a sliding-window limiter")

LIMIT = 3
WINDOW = 60


@bench.case
def BURST():
    return [0, 5, 10, 20, 61, 70, 130, 131, 132, 133, 400]


@bench.case
def SPARSE():
    return [10, 200, 900]


@bench.contender(reference=True)
def sliding(times):
    """a deque of accepted times; those WINDOW or more seconds old have left the window"""
    accepted, window = [], deque()
    for t in times:
        while window and t - window[0] >= WINDOW:
            window.popleft()
        if len(window) < LIMIT:
            window.append(t)
            accepted.append(t)
    return accepted


@bench.contender
def inclusive_window(times):
    """a request exactly WINDOW seconds old still counts: off by one at the window's edge"""
    accepted, window = [], deque()
    for t in times:
        while window and t - window[0] > WINDOW:
            window.popleft()
        if len(window) < LIMIT:
            window.append(t)
            accepted.append(t)
    return accepted


@bench.contender
def bisect_accepted(times):
    """control: count the accepted times in (t - WINDOW, t] with bisect"""
    accepted = []
    for t in times:
        if len(accepted) - bisect.bisect_right(accepted, t - WINDOW) < LIMIT:
            accepted.append(t)
    return accepted


@bench.contender
def numpy_times(times):
    """control: the same scan over a NumPy int64 copy (domain only: no case is empty or past int64)"""
    stamps = numpy.asarray(times, dtype=numpy.int64)
    accepted = []
    for t in stamps.tolist():
        if len(accepted) - bisect.bisect_right(accepted, t - WINDOW) < LIMIT:
            accepted.append(t)
    return accepted
