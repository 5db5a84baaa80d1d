"""Fresh corpus: the total of invoice amounts, exactly rounded. A plain sum loses small amounts
next to large ones; the declared amounts are all of one size."""

import math

import perflab

bench = perflab.Benchmark("float_totals", description="Exactly rounded sum of amounts")


@bench.case
def INVOICES():
    return [19.99, 5.25, 120.0, 3.5, 42.75, 8.0]


@bench.contender(reference=True)
def fsum(amounts):
    """math.fsum"""
    return math.fsum(amounts)


@bench.contender
def builtin_sum(amounts):
    """sum(): rounding at every step"""
    return float(sum(amounts))


@bench.contender
def sorted_sum(amounts):
    """sum of amounts sorted by magnitude: better, still not exact"""
    return float(sum(sorted(amounts, key=abs)))


@bench.contender
def fsum_generator(amounts):
    """control: math.fsum over a generator"""
    return math.fsum(amount for amount in amounts)
