"""Inputs near the valid ones that the reference may reject, so that error behaviour is compared.

A ``@bench.strategy`` usually generates valid inputs only (port numbers as text, well-formed
documents), and then nothing ever asks whether the contender rejects what the reference rejects:
a lenient parser that accepts "80808080" passes. Here a valid input is changed a little, the way
real bad input looks: text with a stray character, cut short, repeated or empty; a number
negated or given another digit; a container with an item dropped, doubled or replaced by None.
Whether the result is rejected is the reference's to say; fuzzing compares either way.

Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_STRAY = "\x00x-. ,"  # characters that break most formats: parsers tend to reject them


def near_variants(value: Any) -> list[Any]:
    """Values near ``value`` (same type where possible), some of which a validating reference
    rejects; empty when nothing sensible can be made. Deterministic: Hypothesis picks among them."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        return [-value - 1, value * 10 + 9]  # not 2**63: an int may be a size, and divisors of 2**63 take ages
    if isinstance(value, float):
        return [-value]  # not NaN or infinities: strategies leave them out on purpose, JSON has none
    if isinstance(value, (str, bytes)):
        return _text_variants(value)
    if isinstance(value, (list, tuple)):
        items = list(value)
        made: list[list[Any]] = [[], items + items, [None, *items]]
        if items:
            made += [items[:-1], [*items[:-1], None], [*near_variants(items[0])[:1], *items[1:]]]
        return [tuple(m) if isinstance(value, tuple) else m for m in made]
    if isinstance(value, dict) and value:
        first = next(iter(value))
        without = {k: v for k, v in value.items() if k != first}
        nulled = {**value, first: None}
        return [without, nulled, {}]
    return []


def _text_variants(text: Any) -> list[Any]:
    stray: Any = _STRAY if isinstance(text, str) else _STRAY.encode()  # str or bytes, like text
    middle = len(text) // 2
    made = [text[:middle], text * 2, text[:0], text[:middle] + stray[1:2] + text[middle:]]
    made += [text + stray[i : i + 1] for i in range(len(stray))]
    return made
