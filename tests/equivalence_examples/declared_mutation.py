"""A legitimately mutating operation, declared as such: timed on a fresh copy per call."""
import random

import perflab

bench = perflab.Benchmark("sort_in_place", mutates_input=True)


@bench.case
def FLOATS():
    rng = random.Random(3)
    return [rng.random() for _ in range(2_000)]


@bench.contender
def list_sort(xs):
    xs.sort()


@bench.contender(description="control: slice assignment of sorted()")
def slice_assign(xs):
    xs[:] = sorted(xs)
