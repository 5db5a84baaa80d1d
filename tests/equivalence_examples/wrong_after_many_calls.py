"""Issue 12, example 3: a contender whose result becomes wrong from its 1,000th call on."""

import perflab

bench = perflab.Benchmark("total")


@bench.case
def NUMBERS():
    return list(range(200))


@bench.contender
def builtin_sum(xs):
    return sum(xs)


_calls = [0]


@bench.contender
def drifting(xs):
    _calls[0] += 1
    total = sum(xs[::2]) + sum(xs[1::2])
    return total + 1 if _calls[0] >= 1000 else total
