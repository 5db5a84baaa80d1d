"""Generated inputs with boundary values at the places fast rewrites assume away.

Random draws put a special value anywhere, rarely at the ends or everywhere; and text drawn from
the declared text's characters never holds another script's digits. Here a generated input (in the
domain) is changed systematically:

- a sequence of floats gets -0.0, and NaN and the infinities where the domain holds each, at its
  first position, its last, or every one (the built-in ``min``, ``max`` and ``sorted`` answer by
  position around NaN);
- a sequence gets None at its first, last or every position, where the domain holds None;
- text with a digit or a space gets that digit in other scripts (Arabic-Indic, Devanagari, full
  width) or as another numeric character (superscript two), every kind of whitespace in place of
  its first space or around it, and a combining mark after its first character: where
  ``str.isdigit``, ``\\d``, ``int()``, ``split()`` and ``strip()`` differ from an ASCII fast path;
- a list holding lists (a recursive type) is wrapped 4, 16 and 64 levels deeper, where a fixed
  depth or a recursion limit shows;
- a list is also passed as a tuple and as a one-shot iterator (other kinds of input of the same
  items, as callers pass rows and generators), compared only where the reference takes them
  (perflab.bench.worker.fuzz; a difference on the iterator is said beside the verdict).

Inside a list or tuple the same is done to its first and last items. Standard library only.
"""

from __future__ import annotations

import copy
import math

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.worker.declared_domain import Domain

_DIGIT_SCRIPTS = (0x0660, 0x0966, 0xFF10)  # the zeros of Arabic-Indic, Devanagari and full-width digits
_OTHER_NUMERIC = "\u00b2"  # SUPERSCRIPT TWO: isdigit() is true, int() refuses it
# Whitespace to str.split() and strip(), not to a parser that looks for " ": tab, vertical tab,
# form feed, file separator, next line, no-break space, thin space, ideographic space.
_WHITESPACE = "\t\x0b\x0c\x1c\x85\u00a0\u2009\u3000"
_COMBINING = "\u0301"  # COMBINING ACUTE ACCENT
_DEPTHS = (4, 16, 64)  # levels a recursive list is wrapped in


def boundaries(value: Any, domain: Domain) -> list[Any]:
    """``value`` changed at its boundaries (empty when nothing applies): in itself, and at the
    first and last items of a list or tuple."""
    made = _of_one(value, domain) + _deeper(value)
    if type(value) in (list, tuple) and value:
        for index in sorted({0, len(value) - 1}):
            for item in _of_one(value[index], domain):
                items = list(value)
                items[index] = item
                made.append(type(value)(items))
    return made


class OneShot:
    """A one-shot iterator over a list's items, as a caller passes a generator: iterated once,
    then empty. A copy (each call gets its own) starts again at the first item; its pickle, which
    the mutation check compares, holds the items, so being consumed is not a change."""

    __hash__ = None  # type: ignore[assignment]  # equal by items, and not hashable, as a list

    def __init__(self, items: list[Any]):
        self.items = list(items)
        self._iterator = iter(self.items)

    def __iter__(self) -> OneShot:
        return self

    def __next__(self) -> Any:
        return next(self._iterator)

    def __deepcopy__(self, memo: dict) -> OneShot:
        return OneShot(copy.deepcopy(self.items, memo))

    def __reduce__(self) -> tuple[Any, ...]:
        return OneShot, (self.items,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OneShot) and other.items == self.items

    def __repr__(self) -> str:
        return f"iter({self.items!r})"


def other_kinds(value: Any) -> list[Any]:
    """A list's items as a tuple and as a one-shot iterator (empty for anything but a non-empty
    list): inputs the reference may take as well as a list."""
    return [tuple(value), OneShot(value)] if type(value) is list and value else []


def _of_one(value: Any, domain: Domain) -> list[Any]:
    if isinstance(value, str):
        return _text(value)
    if type(value) not in (list, tuple) or not value:
        return []
    specials: list[Any] = []
    if all(type(item) is float for item in value):
        specials += [-0.0] + [math.nan] * domain.nan + [math.inf, -math.inf] * domain.infinite
    if type(None) in domain.types:
        specials.append(None)
    made = []
    for special in specials:
        made += [[special, *value[1:]], [*value[:-1], special], [special] * len(value)]
    return [type(value)(items) for items in made]


def _deeper(value: Any) -> list[Any]:
    """``value`` wrapped in lists, where it is a list that holds a list."""
    if type(value) is not list or not any(type(item) is list for item in value):
        return []
    made = []
    for depth in _DEPTHS:
        nested: Any = value
        for _ in range(depth):
            nested = [nested]
        made.append(nested)
    return made


def _text(text: str) -> list[str]:
    made = []
    digit = next((i for i, c in enumerate(text) if "0" <= c <= "9"), None)
    if digit is not None:
        before, after = text[:digit], text[digit + 1 :]
        value = int(text[digit])
        made += [before + chr(zero + value) + after for zero in _DIGIT_SCRIPTS]
        made.append(before + _OTHER_NUMERIC + after)
    space = text.find(" ")
    if space >= 0:
        made += [text[:space] + kind + text[space + 1 :] for kind in _WHITESPACE]
    if digit is not None or space >= 0:
        made += [kind + text + kind for kind in _WHITESPACE[-3:]]  # around it: strip() removes these
    if text:
        made.append(text[0] + _COMBINING + text[1:])
    return made
