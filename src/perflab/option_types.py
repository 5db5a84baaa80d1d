"""argparse types for perflab's options, shared by the command line and the pytest plugin.

Each turns the text of one option into a value or raises ``argparse.ArgumentTypeError`` with one
line saying what is accepted; non-finite numbers (nan, inf) are refused everywhere.
"""

from __future__ import annotations

import argparse
import math


def percentage(text: str) -> float:
    """'1', '0.5%' -> 0.01, 0.005; strictly between 0 and 100 percent."""
    try:
        value = float(text.rstrip("%")) / 100
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (e.g. 1 or 0.5%)") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100 percent")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive, finite number of seconds")
    return value
