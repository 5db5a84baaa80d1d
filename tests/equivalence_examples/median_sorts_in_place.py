"""Issue 12, example 1: a median that sorts its argument in place."""
import random

import perflab

bench = perflab.Benchmark("median")


@bench.case
def FLOATS():
    rng = random.Random(1)
    return [rng.random() for _ in range(20_000)]


@bench.contender
def sorted_copy(xs):
    return sorted(xs)[len(xs) // 2]


@bench.contender
def sort_in_place(xs):
    xs.sort()
    return xs[len(xs) // 2]


@bench.strategy
def floats(st):
    return st.lists(st.floats(allow_nan=False), min_size=1)
