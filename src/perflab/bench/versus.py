"""How a difference between two outputs names them: each value beside its side ("reference 49,
contender 0"), never ``49 != 0``, which leaves the reader to guess which side is which."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

# What the equivalence checks compare: the reference's output (first), a contender's (second).
SIDES = ("reference", "contender")


def versus(sides: tuple[str, str], first: Any, second: Any) -> str:
    """``first`` and ``second`` (already shown as text, or shown with str) named by their sides."""
    return f"{sides[0]} {first}, {sides[1]} {second}"
