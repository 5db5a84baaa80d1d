"""Independent corpus: a unit price in dollars (a float with at most three decimals, as a feed
sends it) times a quantity, rounded half up to the cent. The declared lines never land on a half
cent."""

from decimal import ROUND_HALF_UP, Decimal

import perflab

bench = perflab.Benchmark("cents", description="Line totals rounded half up to the cent")


@bench.case
def LINE():
    return (19.99, 3)


@bench.case
def CHEAP():
    return (0.1, 7)


@bench.case
def BULK():
    return (4.25, 12)


@bench.contender(reference=True)
def decimal_total(line):
    """the price's shortest decimal text, Decimal arithmetic, ROUND_HALF_UP"""
    price, quantity = line
    return int((Decimal(repr(price)) * quantity * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@bench.contender
def float_total(line):
    """floats and int(x + 0.5): 1.005 * 100 is 100.49999999999999"""
    price, quantity = line
    return int(price * quantity * 100 + 0.5)


@bench.contender
def round_builtin(line):
    """round(), which rounds half to even: 0.125 * 100 is 12.5, and round gives 12"""
    price, quantity = line
    return round(price * quantity * 100)


@bench.contender
def quantize_cents(line):
    """control: quantize to the cent first, then scale to whole cents"""
    price, quantity = line
    return int((Decimal(repr(price)) * quantity).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) * 100)
