"""Independent corpus: counts of readings in 20 bins of 0.5 over [0, 10]; a reading of exactly
the top, 10.0, belongs to the last bin, and readings outside the range are refused. No declared
reading is at an edge."""

import numpy

import perflab

bench = perflab.Benchmark("histogram", description="A 20-bin histogram of readings in [0, 10]")

TOP = 10.0
BINS = 20


@bench.case
def READINGS():
    return [0.3, 1.7, 2.2, 9.9, 4.4, 4.6, 7.25, 0.05]


@bench.case
def ONE():
    return [5.1]


@bench.contender(reference=True)
def clamped(readings):
    """the bin of x is int(x / width), the top edge in the last bin"""
    counts = [0] * BINS
    for x in readings:
        if not 0.0 <= x <= TOP:
            raise ValueError(f"reading {x} outside [0, {TOP}]")
        counts[min(int(x / (TOP / BINS)), BINS - 1)] += 1
    return counts


@bench.contender
def unclamped(readings):
    """the bin index without the clamp: 10.0 falls past the last bin (IndexError)"""
    counts = [0] * BINS
    for x in readings:
        if not 0.0 <= x <= TOP:
            raise ValueError(f"reading {x} outside [0, {TOP}]")
        counts[int(x / (TOP / BINS))] += 1
    return counts


@bench.contender
def half_open(readings):
    """a half-open range [0, 10): the top itself is refused"""
    counts = [0] * BINS
    for x in readings:
        if not 0.0 <= x < TOP:
            raise ValueError(f"reading {x} outside [0, {TOP})")
        counts[int(x / (TOP / BINS))] += 1
    return counts


@bench.contender
def numpy_histogram(readings):
    """control: numpy.histogram over range (0, 10), whose last bin holds its right edge"""
    for x in readings:
        if not 0.0 <= x <= TOP:
            raise ValueError(f"reading {x} outside [0, {TOP}]")
    counts, _ = numpy.histogram(numpy.asarray(readings, dtype=float), bins=BINS, range=(0.0, TOP))
    return counts.tolist()
