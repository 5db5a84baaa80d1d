"""Independent corpus: durations such as "1h30m" or "45s" in seconds. Malformed text raises the
parser's DurationError (a ValueError). The declared durations use ASCII digits."""

import re

import perflab

bench = perflab.Benchmark("durations", description="Durations like 1h30m5s in seconds")

_PART = re.compile(r"(\d+)([hms])")
_UNITS = {"h": 3600, "m": 60, "s": 1}


class DurationError(ValueError):
    """not a duration"""


@bench.case
def MEETING():
    return "1h30m"


@bench.case
def TIMEOUT():
    return "45s"


@bench.case
def LONG():
    return "2h5m10s"


@bench.contender(reference=True)
def scanned(text):
    """the parts, each digits and a unit, covering the whole text"""
    if not text or _PART.sub("", text):
        raise DurationError(f"not a duration: {text!r}")
    return sum(int(digits) * _UNITS[unit] for digits, unit in _PART.findall(text))


@bench.contender
def ascii_class(text):
    """[0-9] for \\d: another script's digits are refused"""
    if not text or re.sub(r"([0-9]+)([hms])", "", text):
        raise DurationError(f"not a duration: {text!r}")
    return sum(int(digits) * _UNITS[unit] for digits, unit in re.findall(r"([0-9]+)([hms])", text))


@bench.contender
def by_hand(text):
    """a loop over characters; an unknown unit raises KeyError"""
    if not text:
        raise DurationError("empty duration")
    total, digits = 0, ""
    for character in text:
        if character.isdecimal():
            digits += character
        elif digits:
            total += int(digits) * _UNITS[character]
            digits = ""
        else:
            raise DurationError(f"not a duration: {text!r}")
    if digits:
        raise DurationError(f"not a duration: {text!r}")
    return total


@bench.contender
def fullmatch_loop(text):
    """control: a full match of the repeated part, then the parts"""
    if not re.fullmatch(r"(?:\d+[hms])+", text):
        raise DurationError(f"not a duration: {text!r}")
    return sum(int(digits) * _UNITS[unit] for digits, unit in _PART.findall(text))
