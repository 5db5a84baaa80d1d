"""argparse types for perflab's options, shared by the command line and the pytest plugin.

Each turns the text of one option into a value or raises ``argparse.ArgumentTypeError`` with one
line saying what is accepted; non-finite numbers (nan, inf) are refused everywhere.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

# The option of the --rev verbs that reads the benchmark file from each revision instead of
# running the given one on each revision's code (perflab.measure.worktrees).
FROM_REVISION = "--benchmark-from-revision"
# check's opposite: it reads the baseline's benchmark file at --against REV (a file that holds the
# code under test must not be run on both sides); this runs the given one on REV's code instead.
FROM_WORKTREE = "--benchmark-from-worktree"


def percentage(text: str) -> float:
    """A percentage in (0, 100), returned as a fraction: '1' and '0.5%' are 0.01 and 0.005."""
    value = _finite(text.rstrip("%"), f"{text!r} is not a percentage (e.g. 1 or 0.5%)") / 100
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100 percent")
    return value


# A budget or timeout beyond this is a typo, not a plan (and time.monotonic() + 1e300 overflows).
MAX_SECONDS = 7 * 24 * 3600.0


def seconds(text: str) -> float:
    """A positive, finite duration in seconds, at most a week."""
    value = _finite(text, f"{text!r} is not a number of seconds")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r} is more than a week ({MAX_SECONDS:g} s)")
    return value


_SIZE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def size(text: str) -> int:
    """A size in bytes, with a binary unit if wanted: '500M', '10G', '1.5GiB', '0' (nothing)."""
    found = re.fullmatch(r"\s*([0-9.]+)\s*([KMGT]?)(i?B)?\s*", text, re.IGNORECASE)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 500M or 10G)")
    number = _finite(found.group(1), f"{text!r} is not a size (e.g. 500M or 10G)")
    return int(number * _SIZE_UNITS[found.group(2).upper()])


def whole_number(minimum: int, maximum: int = 10**7) -> Callable[[str], int]:
    """A validator for a whole number in [minimum, maximum]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{text!r} must be a whole number from {minimum} to {maximum:,}")
        return value

    parse.__name__ = "whole number"  # what argparse names in its own messages
    return parse


def _finite(text: str, message: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(message) from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number")
    return value


def regex(text: str) -> re.Pattern[str]:
    """A Python regular expression (asv's ``-b`` filter), compiled."""
    try:
        return re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {error}") from None


def matching(names: list[str], patterns: list[re.Pattern[str]] | None) -> list[str]:
    """The case names any of ``patterns`` finds (``re.search``, as asv's ``-b``); all of them
    without patterns. None found is a ValueError naming the patterns and a few names."""
    if not patterns:
        return names
    found = [name for name in names if any(pattern.search(name) for pattern in patterns)]
    if not found:
        shown = " ".join(f"-b {pattern.pattern!r}" for pattern in patterns)
        raise ValueError(f"no case matches {shown} (cases: {', '.join(names[:5])}{', ...' * (len(names) > 5)})")
    return found


# Set by a queue worker for the jobs it runs: a submitted repository's pyproject.toml must not
# choose a job's options (its outputs above all: the worker decides where they go;
# perflab.cli.support.project_defaults).
IGNORE_PROJECT_DEFAULTS = "PERFLAB_IGNORE_PROJECT_DEFAULTS"
