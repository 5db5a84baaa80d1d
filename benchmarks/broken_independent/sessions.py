"""Independent corpus: split sorted visit times (seconds) into sessions at gaps longer than 30
minutes. The declared gaps are never exactly 1800 s."""

import itertools

import perflab

bench = perflab.Benchmark("sessions", description="Sessions of a visitor: gaps over 1800 s split them")


@bench.case
def VISITS():
    return [0, 40, 900, 4000, 4100, 9000, 9600, 20000]


@bench.case
def ONE():
    return [300, 500]


@bench.contender(reference=True)
def by_gap(times):
    """a new session after a gap over 1800 s"""
    sessions = 1
    for earlier, later in zip(times, times[1:]):
        if later - earlier > 1800:
            sessions += 1
    return sessions


@bench.contender
def at_least(times):
    """a gap of 1800 s or more: off by one at exactly 30 minutes"""
    return 1 + sum(1 for earlier, later in zip(times, times[1:]) if later - earlier >= 1800)


@bench.contender
def in_minutes(times):
    """gaps compared in whole minutes: 1830 s is 30 minutes, not over"""
    return 1 + sum(1 for earlier, later in zip(times, times[1:]) if (later - earlier) // 60 > 30)


@bench.contender
def pairwise_count(times):
    """control: itertools.pairwise (or zip) and a sum"""
    pairs = itertools.pairwise(times) if hasattr(itertools, "pairwise") else zip(times, times[1:])
    return 1 + sum(later - earlier > 1800 for earlier, later in pairs)
