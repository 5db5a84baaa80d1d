"""Issue 12, example 4: a reference that sorts its input in place, and a wrong contender that
only looks right when it is handed the already sorted object."""

import random

import perflab

bench = perflab.Benchmark("smallest")


@bench.case
def FLOATS():
    rng = random.Random(2)
    return [rng.random() for _ in range(5_000)]


@bench.contender
def sort_then_first(xs):
    xs.sort()
    return xs[0]


@bench.contender
def first(xs):
    return xs[0]
