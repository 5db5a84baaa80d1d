"""The constants the code under test names, and inputs built around them.

Random draws almost never meet the values a function singles out: a window of 7 items, a
threshold of 1000, a packing multiplier, a separator. Fuzzers have long taken such values from the
code itself (dictionaries, comparison operands). Here they are the constants of the compiled code
(``co_consts``, where Python has already folded ``1 << 64`` and ``2**31``) of the reference and a
contender, of the functions and comprehensions inside them, and of the functions of their own
module that they call (by name, a few levels down). Inputs are built around them: the constant and
its neighbours in place of an item, two items exactly that far apart, the constant's text in place
of a number in text, a text constant put inside text.

Standard library only.
"""

from __future__ import annotations

import math
import re
import types
from dataclasses import dataclass, field

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_FUNCTIONS = 30  # functions looked into, callees included
_KEPT = 16  # constants of each kind kept (the smallest in magnitude, then the largest)
_LONGEST_TEXT = 16  # characters of a text constant: longer ones are messages, not formats
_LARGEST = 2**64  # integers past this are not data anyone passes
_NUMBER = re.compile(r"\d+")


@dataclass
class Constants:
    integers: list[int] = field(default_factory=list)
    floats: list[float] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def count(self) -> int:
        return len(self.integers) + len(self.floats) + len(self.texts)

    def largest_integer(self) -> int:
        return max((abs(n) for n in self.integers), default=0)


def mined(*functions: Any) -> Constants:
    """The constants named by ``functions`` (callables: functions, bound methods, partials,
    objects with ``__call__``) and by the functions of their modules they call."""
    integers: set[int] = set()
    floats: set[float] = set()
    texts: set[str] = set()
    queue = [code for function in functions for code in [_code_of(function)] if code is not None]
    seen: set[int] = set()
    while queue and len(seen) < _FUNCTIONS:
        code, namespace, doc = queue.pop(0)
        if id(code) in seen:
            continue
        seen.add(id(code))
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                queue.append((constant, namespace, None))
            elif isinstance(constant, bool) or constant is None:
                continue
            elif isinstance(constant, int) and abs(constant) <= _LARGEST:
                integers.add(constant)
            elif isinstance(constant, float) and math.isfinite(constant):
                floats.add(constant)
            elif isinstance(constant, str) and constant != doc and 0 < len(constant) <= _LONGEST_TEXT:
                texts.add(constant)
        for name in code.co_names:  # functions of the same module it calls by name
            callee = namespace.get(name) if namespace is not None else None
            if isinstance(callee, types.FunctionType) and callee.__globals__ is namespace:
                queue.append((callee.__code__, namespace, callee.__doc__))
    return Constants(_kept(integers), _kept(floats), sorted(texts)[:_KEPT])


def around(value: Any, constants: Constants) -> list[Any]:
    """Inputs like ``value`` built around ``constants`` (empty when nothing fits): at ``value``
    itself and, in a list or tuple, at its first and last items. A sorted sequence of numbers stays
    sorted (timestamps, a strategy's ``.map(sorted)``): only its order would change otherwise."""
    made = _around_one(value, constants)
    if type(value) in (list, tuple) and value:
        made += _pairs(value, constants)
        for index in sorted({0, len(value) - 1}):
            for item in _around_one(value[index], constants):
                items = list(value)
                items[index] = item
                made.append(type(value)(items))
        if _sorted_numbers(value):
            made = [type(value)(sorted(items)) if _numbers(items) else items for items in made]
    return made


def _numbers(value: Any) -> bool:
    return type(value) in (list, tuple) and all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in value
    )


def _sorted_numbers(value: list | tuple) -> bool:
    return len(value) > 1 and _numbers(value) and all(a <= b for a, b in zip(value, value[1:]))


def _around_one(value: Any, constants: Constants) -> list[Any]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [n + delta for n in constants.integers for delta in (-1, 0, 1)]
    if isinstance(value, float):
        return [float(n) for n in constants.integers] + constants.floats
    if isinstance(value, str):
        middle = len(value) // 2
        made = [value[:middle] + text + value[middle:] for text in constants.texts]
        number = _NUMBER.search(value)
        if number:  # the constant (and its neighbours) in place of the text's first number
            made += [
                value[: number.start()] + str(n + delta) + value[number.end() :]
                for n in constants.integers
                if n >= 0
                for delta in (-1, 0, 1)
            ]
        return made
    return []


def _pairs(value: list | tuple, constants: Constants) -> list[Any]:
    """``value`` with its last item (and its second) a constant away from its first, exactly and
    one more: a window's length, a threshold between neighbours, two keys a formula maps to one
    number."""
    first = value[0]
    if isinstance(first, bool) or not isinstance(first, (int, float)):
        return []
    distances = constants.integers if isinstance(first, int) else constants.integers + constants.floats
    made = []
    for n in distances:
        if not n:
            continue
        for partner in (first + n, first + n + 1):
            made.append(type(value)([*value[:-1], partner] if len(value) > 1 else [first, partner]))
            if len(value) > 2:
                made.append(type(value)([first, partner, *value[2:]]))
    return made


def _kept(numbers: set[Any]) -> list[Any]:
    """At most _KEPT of ``numbers``: the smallest in magnitude and the largest, in a fixed order."""
    ordered = sorted(numbers, key=lambda n: (abs(n), n))
    if len(ordered) <= _KEPT:
        return ordered
    return ordered[: _KEPT // 2] + ordered[-(_KEPT // 2) :]


def _code_of(function: Any) -> tuple[types.CodeType, dict | None, str | None] | None:
    """(code, module namespace, docstring) of a callable, or None where it has no Python code."""
    for _ in range(4):  # a partial of a bound method of ..., unwrapped
        if isinstance(function, types.FunctionType):
            return function.__code__, function.__globals__, function.__doc__
        inner = getattr(function, "__wrapped__", None) or getattr(function, "__func__", None)
        inner = inner or getattr(function, "func", None)
        if inner is None and not isinstance(function, type):
            call = vars(type(function)).get("__call__")  # a class's own __call__, written in Python
            inner = call if isinstance(call, types.FunctionType) else None
        if inner is None:
            return None
        function = inner
    return None
