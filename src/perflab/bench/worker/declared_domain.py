"""The inputs a benchmark declares, and whether a generated input lies outside them.

Fuzzing goes past the declared cases on purpose, but not every input it makes is one the
operation is meant to take: None, or a str among numbers, where no case holds one; an empty list
where every case has items; integers at the machine-width limits where the cases hold small
samples. A correct rewrite may differ there (a NumPy mean gives nan on an empty array where the
reference raises, an int64 sum wraps at 2**63), and flagging it NOT EQUIVALENT is a false alarm
of the same weight as a real bug. The domain is what the benchmark declares: with a
``@bench.strategy``, what the strategy draws (and the cases), its integers within the range
drawn; without one, what the cases hold:
the types of every object in them, which kinds of collection are ever empty, the lengths of
their tuples where they have a few (records), whether any float is NaN or
infinite, and their integers' magnitude (widened to the largest integer the reference's own code
names: a checksum modulo 2**64 is meant for ids up to 2**64). A difference on an input outside
it is reported beside the verdict, not as the verdict (perflab.bench.worker.fuzz).

Standard library only.
"""

from __future__ import annotations

import math
import sys

from perflab.bench.arrays import is_array

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_NODES = 2000  # objects of one input looked at (containers and their items)
# Integers count as far past the declared ones beyond this many times their magnitude: generated
# integers reach twice it, the machine-width limits (2**31 and up) lie past it for small samples.
_FAR = 2**16
_SMALLEST_FAR = 2**20  # declared integers of 0 and 1 still allow ordinary numbers
_COLLECTIONS = (list, tuple, set, frozenset, dict)
_RECORD_LENGTHS = 4  # declared tuples of at most this many lengths are records, of fixed lengths


class Domain:
    """What the declared inputs hold, grown by ``add``; ``outside`` says why a value is not in it."""

    def __init__(self, values: list[Any] | tuple[Any, ...] = (), named_bound: int = 0):
        self.types: set[type] = set()
        self.empty: set[type] = set()  # the kinds of collection (not text) some declared one of is empty
        # The lengths of the declared tuples: where they take a few (records: a pair, a row of 3),
        # a tuple of another length is not one of them.
        self.tuple_lengths: set[int] = set()
        self.nan = False  # some float is NaN
        self.infinite = False  # some float is an infinity
        self.integers = 0  # largest magnitude of a declared integer
        # Whether some sequence of 3 or more numbers was seen, and whether one was out of order:
        # where every one is sorted (timestamps, a strategy's .map(sorted)), order is declared.
        self.sequences = self.unsorted = False
        self.named_bound = named_bound  # largest integer the reference's code names
        # With a strategy, the integers it draws are the range: (0, 4999) says 5000 is not a row.
        self.drawn = False
        self.lowest: int | None = None
        self.highest: int | None = None
        for value in values:
            self.add(value)

    def add(self, value: Any) -> None:
        for item in _objects(value):
            self.types.add(type(item))
            if is_array(item):
                if int(item.size) == 0:
                    self.empty.add(type(item))
                self.nan |= _array_holds(item, "isnan")
                self.infinite |= _array_holds(item, "isinf")
                self.integers = max(self.integers, _array_magnitude(item))
            elif isinstance(item, _COLLECTIONS):
                if not item:
                    self.empty.add(type(item))
                if type(item) is tuple:
                    self.tuple_lengths.add(len(item))
                order = _order(item)
                self.sequences |= order is not None and len(item) > 2
                self.unsorted |= order is False
            elif isinstance(item, float):
                self.nan |= math.isnan(item)
                self.infinite |= math.isinf(item)
            elif isinstance(item, int) and not isinstance(item, bool):
                self.integers = max(self.integers, abs(item))
                self.lowest = item if self.lowest is None else min(self.lowest, item)
                self.highest = item if self.highest is None else max(self.highest, item)

    def integer_bound(self) -> int:
        """Integers past this magnitude are far past the declared ones."""
        return max(_FAR * self.integers, _SMALLEST_FAR, self.named_bound)

    def describe(self) -> str:
        """The domain in words, for the evidence: "the declared cases: list, float; none empty; no NaN"."""
        kinds = ", ".join(sorted({"None" if kind is type(None) else kind.__name__ for kind in self.types}))
        empty = ", ".join(sorted(kind.__name__ for kind in self.empty))
        parts = [f"the declared cases: {kinds or 'nothing'}", f"empty: {empty}" if self.empty else "none empty"]
        if float in self.types or any(kind.__name__ == "ndarray" for kind in self.types):
            parts.append(("NaN" if self.nan else "no NaN") + ("; infinities" if self.infinite else "; no infinity"))
        if self.integers or self.named_bound:
            parts.append(f"integers up to {self.integer_bound()} in magnitude")
        return "; ".join(parts)

    def outside(self, value: Any) -> str | None:
        """Why ``value`` lies outside the declared inputs ("holds None, which no declared input
        holds"), or None where it lies inside."""
        bound = self.integer_bound()
        for item in _objects(value):
            kind = type(item)
            if kind not in self.types:
                what = "None" if item is None else f"a {kind.__name__}"
                return f"holds {what}, which no declared input holds"
            if is_array(item):
                if int(item.size) == 0 and kind not in self.empty:
                    return "an empty array, where no declared input is empty"
                if (_array_holds(item, "isnan") and not self.nan) or (
                    _array_holds(item, "isinf") and not self.infinite
                ):
                    return "an array holding NaN or an infinity, which no declared float is"
                if _array_magnitude(item) > bound:
                    return f"an array of integers past {bound} in magnitude (declared up to {self.integers})"
            elif isinstance(item, _COLLECTIONS):
                if not item and kind not in self.empty:
                    return f"an empty {kind.__name__}, where no declared {kind.__name__} is empty"
                if kind is tuple and len(self.tuple_lengths) <= _RECORD_LENGTHS and len(item) not in self.tuple_lengths:
                    lengths = " or ".join(str(n) for n in sorted(self.tuple_lengths))
                    return f"a tuple of {len(item)} items, where every declared tuple has {lengths}"
                if self.sequences and not self.unsorted and _order(item) is False:
                    return f"a {kind.__name__} out of order, where every declared sequence is sorted"
            elif isinstance(item, float):
                if (math.isnan(item) and not self.nan) or (math.isinf(item) and not self.infinite):
                    return f"holds {item!r}, which no declared float is"
            elif isinstance(item, int) and not isinstance(item, bool):
                if self.drawn and self.lowest is not None and not self.lowest <= item <= (self.highest or 0):
                    return f"holds {item}, outside the integers the strategy draws ({self.lowest} to {self.highest})"
                if abs(item) > bound:
                    return f"holds {item}, far past the declared integers (up to {self.integers})"
        return None


def _objects(value: Any) -> list[Any]:
    """``value`` and the objects inside its built-in containers, up to _NODES of them."""
    found: list[Any] = []
    stack = [value]
    while stack and len(found) < _NODES:
        item = stack.pop()
        found.append(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, _COLLECTIONS):
            stack.extend(item)
    return found


def _order(item: Any) -> bool | None:
    """Whether a list or tuple of 2 or more numbers is sorted (ascending); None for anything else."""
    if type(item) not in (list, tuple) or len(item) < 2:
        return None
    if not all(type(x) in (int, float) for x in item):
        return None
    return all(a <= b for a, b in zip(item, item[1:]))


def _array_holds(array: Any, test: str) -> bool:
    """Whether a float array holds an element for which numpy.``test`` (isnan, isinf) is true."""
    if array.dtype.kind not in "fc" or not array.size:
        return False
    return bool(getattr(sys.modules["numpy"], test)(array).any())


def _array_magnitude(array: Any) -> int:
    if array.dtype.kind not in "iu" or not array.size:
        return 0
    return max(abs(int(array.min())), abs(int(array.max())))
