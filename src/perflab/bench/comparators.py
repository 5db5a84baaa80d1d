"""How a contender's output is compared with the reference's output.

A comparator answers: are these two outputs the same, and if not, where is the first difference?
Four kinds come built in: ``"exact"`` (equal values, equal types, mappings in the same key order), ``"lines"`` (the same lines in any order), ``"json"`` (both outputs parse
as JSON to the same value; differing bytes are noted, not failed) and a user function
``f(reference_output, output) -> bool`` (it may also raise AssertionError with a message).

Imported by worker processes: standard library only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from perflab.bench.arrays import array_difference, is_array
from perflab.bench.plain_objects import attributes, is_plain, named_by_address, written
from perflab.bench.versus import SIDES, versus

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_SNIPPET = 30  # characters of context shown either side of a first difference
# After two objects that only == by identity and have no attributes to compare (a generator, a lock).
_IDENTITY_HINT = " (objects compared by identity: return a value, or pass compare= a function)"


class Outcome:
    """A comparator's answer (a plain class, not a dataclass: see perflab.bench.spec's docstring)."""

    def __init__(self, equivalent: bool, difference: str | None = None, note: str | None = None) -> None:
        self.equivalent = equivalent
        self.difference = difference  # where and how the outputs first differ
        self.note = note  # equivalent, but worth knowing (e.g. bytes differ)


class Comparator:
    name = "comparator"
    compares = True  # False: nothing is compared (a pyperf script's), and no check job runs

    def check(self, expected: Any, actual: Any) -> Outcome:
        raise NotImplementedError


class NotCompared(Comparator):
    """A pyperf script's timed functions return nothing to compare: pyperf ignores what they return
    (often a time, or whatever the last statement gave), and a script has no reference to be
    equivalent to. No check job runs (perflab.measure.equivalence.not_compared): the first timing
    worker runs the script up to each case, and its error is the case's."""

    name = "not compared (pyperf script)"
    compares = False
    note = "pyperf script: what its timed functions return is not compared, as under pyperf"

    def check(self, expected: Any, actual: Any) -> Outcome:
        return Outcome(True, note=self.note)


class ExactComparator(Comparator):
    """Outputs must be equal and of the same types (1 != 1.0 != True; NaN equals NaN), mappings
    with their keys in the same order (sets in any order), NumPy arrays of the same shape, dtype
    and values (NaN equal to NaN at the same place), objects of a class without ``==`` of equal
    attributes."""

    name = "exact"

    def check(self, expected: Any, actual: Any) -> Outcome:
        difference = first_difference(expected, actual)
        return Outcome(difference is None, difference)


class JsonComparator(Comparator):
    """Both outputs (str or bytes of JSON text) must parse to the same value."""

    name = "json"

    def check(self, expected: Any, actual: Any) -> Outcome:
        try:
            expected_value, actual_value = _parse_json(expected), _parse_json(actual)
        except ValueError as error:
            return Outcome(False, f"output is not valid JSON: {error}")
        difference = first_difference(expected_value, actual_value, ordered=False)  # JSON objects: any order
        if difference is not None:
            return Outcome(False, f"parsed values differ {difference}")
        return Outcome(True, note=_byte_differences(expected, actual))


class SortedLinesComparator(Comparator):
    """Both outputs (str or bytes) hold the same lines, in any order (e.g. from parallel workers)."""

    name = "lines"

    def check(self, expected: Any, actual: Any) -> Outcome:
        if not all(isinstance(text, (str, bytes, bytearray)) for text in (expected, actual)):
            return Outcome(False, f"expected text, got {type(expected).__name__} and {type(actual).__name__}")
        difference = first_difference(sorted(expected.splitlines()), sorted(actual.splitlines()))
        if difference is not None:
            return Outcome(False, f"sorted lines differ {difference}")
        return Outcome(True, note=None if expected == actual else "the same lines in another order")


class FunctionComparator(Comparator):
    """A user function ``f(reference_output, output)`` returning True when equivalent."""

    def __init__(self, function: Callable[[Any, Any], Any]):
        self.function = function
        self.name = getattr(function, "__name__", "function")

    def check(self, expected: Any, actual: Any) -> Outcome:
        try:
            verdict = self.function(expected, actual)
        except AssertionError as error:
            return Outcome(False, str(error) or f"{self.name} raised AssertionError")
        if verdict is None or verdict:
            return Outcome(True)
        detail = first_difference(expected, actual) or "outputs are equal as values"
        return Outcome(False, f"{self.name} returned {verdict!r}; {detail}")


def resolve_comparator(compare: Any) -> Comparator:
    """Turn the ``compare=`` argument of a Benchmark into a Comparator."""
    if isinstance(compare, Comparator):
        return compare
    if compare == "exact":
        return ExactComparator()
    if compare == "json":
        return JsonComparator()
    if compare == "lines":
        return SortedLinesComparator()
    if callable(compare):
        return FunctionComparator(compare)
    raise ValueError(f"compare={compare!r}: use 'exact', 'json', 'lines' or a function(reference, output)")


def first_difference(
    expected: Any,
    actual: Any,
    path: str = "",
    ordered: bool = True,
    sides: tuple[str, str] = SIDES,
    _visiting: set[tuple[int, int]] | None = None,
) -> str | None:
    """Describe the first place where two values differ, or None when they are the same; each value
    in the description is named by its side (``sides``: what ``expected`` and ``actual`` are).

    A mapping's key order is part of its value (``ordered``, the default): iterating it, printing
    it or serializing it shows the order, and an order that follows set or dict hashing changes
    with the hash seed. ``ordered=False`` compares mappings as JSON objects (any key order). Sets
    are compared as sets, in any order. Plain objects (``==`` is identity) are compared by their
    attributes (perflab.bench.plain_objects); ``_visiting`` holds the pairs of them being compared,
    so that objects that hold each other (a doubly linked list) are compared once.
    """
    where = f"at {path}: " if path else ""
    if type(expected) is not type(actual):
        return f"{where}type: " + versus(
            sides, f"{type(expected).__name__} {_short(expected)}", f"{type(actual).__name__} {_short(actual)}"
        )
    if isinstance(expected, float):
        same = repr(expected) == repr(actual) or (math.isnan(expected) and math.isnan(actual))
        return None if same else where + versus(sides, repr(expected), repr(actual))
    if isinstance(expected, (str, bytes)):
        return None if expected == actual else where + _sequence_difference(expected, actual, sides)
    if isinstance(expected, dict):
        for key in expected:
            if key not in actual:
                return f"{where}key {key!r}: in the {sides[0]}'s, missing from the {sides[1]}'s"
            inner = first_difference(expected[key], actual[key], f"{path}[{key!r}]", ordered, sides, _visiting)
            if inner:
                return inner
        extra = [key for key in actual if key not in expected]
        if extra:
            return f"{where}key {extra[0]!r}: in the {sides[1]}'s, not in the {sides[0]}'s"
        return _key_order_difference(expected, actual, where, sides) if ordered else None
    if isinstance(expected, (list, tuple)):
        for index, (left, right) in enumerate(zip(expected, actual)):
            inner = first_difference(left, right, f"{path}[{index}]", ordered, sides, _visiting)
            if inner:
                return inner
        if len(expected) != len(actual):
            return f"{where}length: " + versus(sides, len(expected), len(actual))
        return None
    if is_array(expected):
        return array_difference(expected, actual, where, sides)
    if is_plain(expected) and expected is not actual:
        mine, theirs = attributes(expected), attributes(actual)
        if mine is not None and theirs is not None:
            pair = (id(expected), id(actual))
            return _attribute_difference(mine, theirs, pair, path, ordered, sides, _visiting or set())
    try:
        same = bool(expected == actual)
    except Exception as error:  # == gave no truth value (an array-like), or raised
        return f"{where}{type(expected).__name__} values cannot be compared with == ({type(error).__name__}: {error})"
    if same:
        return None
    hint = _IDENTITY_HINT if named_by_address(expected) else ""
    return where + versus(sides, _short(expected), _short(actual)) + hint


def _attribute_difference(
    mine: dict[str, Any],
    theirs: dict[str, Any],
    pair: tuple[int, int],
    path: str,
    ordered: bool,
    sides: tuple[str, str],
    visiting: set[tuple[int, int]],
) -> str | None:
    """The first attribute where two plain objects of one class (their ids: ``pair``) differ."""
    if pair in visiting:  # already being compared further up: equal unless a difference shows elsewhere
        return None
    visiting.add(pair)
    where = f"at {path}: " if path else ""
    for name, item in mine.items():
        if name not in theirs:
            return f"{where}attribute {name!r}: in the {sides[0]}'s, missing from the {sides[1]}'s"
        inner = first_difference(item, theirs[name], f"{path}.{name}", ordered, sides, visiting)
        if inner:
            return inner
    extra = [name for name in theirs if name not in mine]
    return f"{where}attribute {extra[0]!r}: in the {sides[1]}'s, not in the {sides[0]}'s" if extra else None


def _key_order_difference(expected: dict, actual: dict, where: str, sides: tuple[str, str]) -> str | None:
    """The first position where two mappings with the same keys list them in another order."""
    for index, (left, right) in enumerate(zip(expected, actual)):
        if left != right:
            return (
                f"{where}same keys in another order: key {index}: {versus(sides, _short(left), _short(right))} "
                f"(orders: {versus(sides, _short(list(expected)), _short(list(actual)))})"
            )
    return None


def _sequence_difference(expected: str | bytes, actual: str | bytes, sides: tuple[str, str]) -> str:
    index = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
    start = max(0, index - _SNIPPET)
    left, right = expected[start : index + _SNIPPET], actual[start : index + _SNIPPET]
    return f"first difference at index {index}: {versus(sides, repr(left), repr(right))}" + (
        f" (lengths: {versus(sides, len(expected), len(actual))})" if len(expected) != len(actual) else ""
    )


def _short(value: Any) -> str:
    return written(value, 2 * _SNIPPET)


def _parse_json(text: Any) -> Any:
    if not isinstance(text, (str, bytes, bytearray)):
        raise ValueError(f"expected str or bytes, got {type(text).__name__}")
    return json.loads(text)


def _byte_differences(expected: Any, actual: Any) -> str | None:
    """Name the ways two semantically equal JSON texts differ in bytes (None if identical)."""
    if expected == actual:
        return None
    reasons = []
    if type(expected) is not type(actual):
        reasons.append(f"{type(actual).__name__} instead of {type(expected).__name__}")
    expected_text, actual_text = (
        t.decode("utf-8") if isinstance(t, (bytes, bytearray)) else t for t in (expected, actual)
    )
    if expected_text != actual_text:
        text_reasons = []
        if _spaced(expected_text) and not _spaced(actual_text):
            text_reasons.append("compact separators")
        if "\\u" in expected_text and any(ord(ch) > 127 for ch in actual_text):
            text_reasons.append("raw UTF-8 instead of \\u escapes")
        reasons.extend(text_reasons or ["different text"])
    return "equal as JSON; bytes differ: " + ", ".join(reasons)


def _spaced(text: str) -> bool:
    return ", " in text or ": " in text
