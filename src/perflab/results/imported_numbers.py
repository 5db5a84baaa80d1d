"""What an imported results file may hold, checked once where its numbers are read (the importers of
Google Benchmark, criterion.rs, asv and pyperf files call these): a time is a positive, finite
number of seconds, no larger than any benchmark runs for; a file or an asv parameter grid is no
larger than perflab reads. Anything else is refused in one line naming the benchmark and the field,
so that no impossible number reaches the store, a history or a page."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sized
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perflab.results.model import RunResult

MAX_SECONDS = 1e6  # per call (11.6 days): more is no measurement, it is a corrupt or hostile file
MAX_FILE_BYTES = 256 * 2**20  # JSON takes ~20 times its size in memory once parsed
MAX_COMBINATIONS = 100_000  # asv's parameter grid: a few kilobytes of params may multiply to billions


class ImpossibleNumber(Exception):  # not a ValueError: importers turn those into "not this format"
    """An imported number no measurement could have given; the message names where and what."""


def seconds(value: Any, where: str, unit: float = 1.0) -> float:
    """``value`` (in ``unit`` seconds) as a time in seconds; ImpossibleNumber unless positive, finite,
    at most MAX_SECONDS. ``where``: the benchmark and field, for the message."""
    try:
        number = float(value) * unit
    except (TypeError, ValueError):
        raise ImpossibleNumber(f"{where} is {value!r}, not a number") from None
    if not math.isfinite(number) or number <= 0 or number > MAX_SECONDS:
        raise ImpossibleNumber(
            f"{where} is {value!r}; a time must be a positive, finite number of seconds (at most {MAX_SECONDS:g})"
        )
    return number


def all_seconds(values: Iterable[Any], where: str, unit: float = 1.0) -> list[float]:
    return [seconds(value, f"{where}[{index}]", unit) for index, value in enumerate(values)]


def check_run(result: RunResult) -> RunResult:
    """``result`` once every value and warm-up of its processes, and every estimate, is a time."""
    for cell in result.cells:
        where = f"benchmark {result.benchmark!r}: {cell.case} / {cell.contender}:"
        for index, run in enumerate(cell.runs):
            all_seconds(run.values, f"{where} runs[{index}].values")
            all_seconds(run.warmups, f"{where} runs[{index}].warmups")
        if cell.estimates is not None:
            seconds(cell.estimates.median.value, f"{where} the median")
            seconds(cell.estimates.mean.value, f"{where} the mean")
    return result


def positive(value: Any, where: str) -> float:
    """A count or an amount of work (iterations, bytes per second): positive and finite."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ImpossibleNumber(f"{where} is {value!r}, not a number") from None
    if not math.isfinite(number) or number <= 0:
        raise ImpossibleNumber(f"{where} is {value!r}; it must be a positive, finite number")
    return number


def text(value: Any, where: str) -> str | None:
    """A name or description (a host name, a date): a string, a number as its text, or None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ImpossibleNumber(f"{where} is a {type(value).__name__}, not a string")


def combinations(grid: Iterable[Sized], where: str) -> int:
    """How many parameter combinations ``grid`` (one list of values per parameter) makes; refused
    beyond MAX_COMBINATIONS before any is built."""
    count = math.prod(len(values) for values in grid)
    if count > MAX_COMBINATIONS:
        raise ImpossibleNumber(
            f"{where}: its parameters make {count:,} combinations; perflab reads {MAX_COMBINATIONS:,} at most"
        )
    return count


def file_size(size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise ImpossibleNumber(
            f"{size / 2**20:,.0f} MiB; perflab reads results files of {MAX_FILE_BYTES // 2**20} MiB at most"
        )
