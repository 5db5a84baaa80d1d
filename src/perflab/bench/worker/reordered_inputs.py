"""Generated sequences with their items in another order.

A strategy builds related values in the order its author thought of: a pair of a name and its
upper-case form, ``(n, n.upper())``, always holds the special character on the same side, so a
fast path decided on one item only ("is the first name ASCII?") never meets it, and neither do
the declared cases. A sequence whose items are all of one type (a pair of names, a list of
amounts) is as valid an input in another order. A tuple of like items is usually the arguments
of one call (two names, two paths, two versions), where a contender may treat one position
apart: every such tuple is also checked reversed. A list is data: one in a few is tried
reversed or with its first two items swapped.

Standard library only.
"""

from __future__ import annotations

from typing import Any


def reversed_arguments(value: Any) -> tuple | None:
    """``value`` reversed, when it is a tuple of at least two items of one type; else None."""
    return value[::-1] if type(value) is tuple and _like_items(value) else None


def reorderings(value: Any) -> list[list]:
    """``value`` reversed and with its first two items swapped, when it is a list of at least two
    items of one type; else empty. Deterministic: Hypothesis picks among them."""
    if type(value) is not list or not _like_items(value):
        return []
    made = [value[::-1]]
    if len(value) > 2:  # for a pair, the swap is the reversal
        made.append([value[1], value[0], *value[2:]])
    return made


def _like_items(value: list | tuple) -> bool:
    return len(value) >= 2 and len({type(item) for item in value}) == 1
