"""Independent corpus: parse a money amount ("12.50") into cents. Malformed text raises the
parser's own AmountError, a subclass of ValueError that callers catch by name. The declared
amounts are ASCII and well formed."""

import re

import perflab

bench = perflab.Benchmark("amounts", description="Money amounts to cents")


class AmountError(ValueError):
    """not an amount of money"""


@bench.case
def PRICE():
    return "12.50"


@bench.case
def ROUND():
    return "7"


@bench.case
def CENTS():
    return "0.05"


@bench.contender(reference=True)
def partition(text):
    """whole part, optional point and up to two decimals"""
    whole, point, fraction = text.strip().partition(".")
    if not whole.isdigit() or len(fraction) > 2 or (fraction and not fraction.isdigit()):
        raise AmountError(f"not an amount: {text!r}")
    return int(whole) * 100 + int(fraction.ljust(2, "0"))


@bench.contender
def plain_value_error(text):
    """the same checks, raising ValueError: a caller's `except AmountError` no longer catches it"""
    whole, point, fraction = text.strip().partition(".")
    if not whole.isdigit() or len(fraction) > 2 or (fraction and not fraction.isdigit()):
        raise ValueError(f"not an amount: {text!r}")
    return int(whole) * 100 + int(fraction.ljust(2, "0"))


@bench.contender
def ord_digits(text):
    """digits by ord() - 48 after an isdigit() check: another script's digits become other numbers"""
    whole, point, fraction = text.strip().partition(".")
    if not whole.isdigit() or len(fraction) > 2 or (fraction and not fraction.isdigit()):
        raise AmountError(f"not an amount: {text!r}")
    cents = 0
    for character in whole + fraction.ljust(2, "0"):
        cents = cents * 10 + ord(character) - 48
    return cents


_AMOUNT = re.compile(r"(\d+)(?:\.(\d{0,2}))?")


@bench.contender
def regex(text):
    """control: one regular expression; \\d and int() agree on every script's decimal digits"""
    match = _AMOUNT.fullmatch(text.strip())
    if match is None:
        raise AmountError(f"not an amount: {text!r}")
    return int(match[1]) * 100 + int((match[2] or "").ljust(2, "0"))
