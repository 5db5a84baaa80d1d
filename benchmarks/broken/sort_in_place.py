"""An operation meant to mutate its input, declared as such (a control).

With ``mutates_input=True`` every timed call gets its own copy and equivalence compares the
inputs after the call: an in-place sort and a slice assignment of sorted() agree.
"""

import perflab

bench = perflab.Benchmark("sort_in_place", description="Sort a list in place", mutates_input=True)


@bench.case
def FLOATS():
    import random

    rng = random.Random(3)
    return [rng.random() for _ in range(2_000)]


@bench.strategy
def floats(st):
    return st.lists(st.floats(allow_nan=False), max_size=50)


@bench.contender(reference=True)
def list_sort(xs):
    """xs.sort()"""
    xs.sort()


@bench.contender
def slice_assign(xs):
    """control: xs[:] = sorted(xs)"""
    xs[:] = sorted(xs)
