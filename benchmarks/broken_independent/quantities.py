"""Independent corpus: a quantity such as "1,250 kg" read from a form. The reference's \\d takes
every script's decimal digits and int() reads them; \\s is every kind of whitespace."""

import re

import perflab

bench = perflab.Benchmark("quantities", description="The number of kilograms in a quantity")

_QUANTITY = re.compile(r"(\d[\d,]*)\s*kg")
_ASCII_QUANTITY = re.compile(r"([0-9][0-9,]*)\s*kg")


@bench.case
def ORDER():
    return "1,250 kg"


@bench.case
def SMALL():
    return "7kg"


@bench.strategy
def quantities(st):
    return st.integers(0, 10**7).flatmap(lambda n: st.sampled_from([f"{n:,} kg", f"{n}kg", f"{n} kg"]))


@bench.contender(reference=True)
def pattern(text):
    """\\d and \\s, then int()"""
    found = _QUANTITY.fullmatch(text)
    if found is None:
        raise ValueError(f"not a quantity: {text!r}")
    return int(found.group(1).replace(",", ""))


@bench.contender
def ascii_pattern(text):
    """[0-9] for speed: rejects the digits of other scripts"""
    found = _ASCII_QUANTITY.fullmatch(text)
    if found is None:
        raise ValueError(f"not a quantity: {text!r}")
    return int(found.group(1).replace(",", ""))


@bench.contender
def split_on_space(text):
    """split at " " and "kg" by hand: a no-break or thin space is not " " """
    number = text[:-2].rstrip(" ") if text.endswith("kg") else ""
    digits = number.replace(",", "")
    if not digits or not digits.isdigit() or number[0] == ",":
        raise ValueError(f"not a quantity: {text!r}")
    return int(digits)


@bench.contender
def compiled_once_more(text):
    """control: the same pattern, matched with re.fullmatch on the compiled pattern's text"""
    found = re.fullmatch(_QUANTITY.pattern, text)
    if found is None:
        raise ValueError(f"not a quantity: {text!r}")
    return int(found.group(1).replace(",", ""))
