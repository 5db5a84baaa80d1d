"""Generated sequences with their items in another order.

A strategy builds related values in the order its author thought of: a pair of a name and its
upper-case form, ``(n, n.upper())``, always holds the special character on the same side, so a
fast path decided on one item only ("is the first name ASCII?") never meets it, and neither do
the declared cases. A sequence whose items are all of one type (a pair of names, a list of
amounts) is as valid an input in another order. A short tuple of like items is usually the
arguments of one call (two names, two paths, two versions), where a contender may treat one
position apart: every such tuple is also checked reversed. A list or a longer tuple is data: one
in a few is tried reversed or with its first two items swapped.

Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

ARGUMENTS = 4  # a tuple of at most this many like items is taken for the arguments of one call


def reversed_arguments(value: Any) -> tuple | None:
    """``value`` reversed, when it is a tuple of 2 to ARGUMENTS items of one type; else None."""
    return value[::-1] if _is_arguments(value) else None


def reorderings(value: Any) -> list[Any]:
    """``value`` reversed and with its first two items swapped, when it is a list or a longer
    tuple of items of one type (data); else empty. Deterministic: Hypothesis picks among them."""
    if type(value) not in (list, tuple) or _is_arguments(value) or not _like_items(value):
        return []
    made = [value[::-1], type(value)([value[1], value[0], *value[2:]])]
    return made if len(value) > 2 else made[:1]  # for a pair, the swap is the reversal


def _is_arguments(value: Any) -> bool:
    return type(value) is tuple and len(value) <= ARGUMENTS and _like_items(value)


def _like_items(value: list | tuple) -> bool:
    return len(value) >= 2 and len({type(item) for item in value}) == 1
