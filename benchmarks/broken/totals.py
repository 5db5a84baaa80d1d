"""Broken optimizations of a sum of integers: state kept across calls, a cache keyed by less
than the input, and a typed fast path that overflows."""

import array
import functools
import operator

import perflab

bench = perflab.Benchmark("totals", description="The sum of a list of integers")


@bench.case
def NUMBERS():
    return list(range(1_000))


@bench.strategy
def integers(st):
    return st.lists(st.integers(), max_size=30)


@bench.contender(reference=True)
def builtin_sum(xs):
    """sum(xs)"""
    return sum(xs)


_running = [0]


@bench.contender
def running_total(xs):
    """An accumulator that is never reset: right on the first call only."""
    for x in xs:
        _running[0] += x
    return _running[0]


_by_shape = {}


@bench.contender
def shape_memo(xs):
    """A memo keyed by (length, first item): cheaper than hashing the list, and wrong."""
    key = (len(xs), xs[0] if xs else None)
    if key not in _by_shape:
        _by_shape[key] = sum(xs)
    return _by_shape[key]


@bench.contender
def typed_array(xs):
    """sum over array('q', xs): 64-bit items, OverflowError beyond them."""
    return sum(array.array("q", xs))


@bench.contender
def reduce_add(xs):
    """control: functools.reduce(operator.add, xs, 0)"""
    return functools.reduce(operator.add, xs, 0)
