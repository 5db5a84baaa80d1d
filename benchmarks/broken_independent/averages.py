"""Independent corpus: the mean basket size of a day's orders (item counts, small integers). The
controls are right on every input the cases declare, and differ only past them: NumPy's int64
wraps at 2**63 and gives nan on an empty day, a pure-Python rewrite answers 0.0 there."""

import numpy

import perflab

bench = perflab.Benchmark("averages", description="Mean items per order")


@bench.case
def MONDAY():
    return [3, 1, 4, 1, 5, 9, 2, 6]


@bench.case
def QUIET():
    return [2, 2, 3]


@bench.contender(reference=True)
def mean(counts):
    """sum / len: ZeroDivisionError on an empty day"""
    return sum(counts) / len(counts)


@bench.contender
def numpy_int64(counts):
    """control: NumPy int64, nan on an empty day (domain only: no case is empty or huge)"""
    with numpy.errstate(all="ignore"):
        return float(numpy.asarray(counts, dtype=numpy.int64).mean()) if counts else float("nan")


@bench.contender
def zero_when_empty(counts):
    """control: 0.0 for an empty day (domain only: no case is empty)"""
    return sum(counts) / len(counts) if counts else 0.0


@bench.contender
def float32_sum(counts):
    """control: NumPy float32 accumulation, exact below 2**24 (domain only: the counts are small)"""
    return float(numpy.asarray(counts, dtype=numpy.float32).sum(dtype=numpy.float32)) / len(counts)


@bench.contender
def rounded(counts):
    """rounded to 4 places for display, inside the computation"""
    return round(sum(counts) / len(counts), 4)
