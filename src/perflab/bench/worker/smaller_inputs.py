"""A failing input made smaller: items taken out of it while the difference remains.

Hypothesis shrinks what it generates, but not out of a declared input changed at full size or a
reordered one: a contender that is wrong on ``[1, 0]`` was shown a 200-item list that happened to
fail first. This takes runs of items out of a list, tuple, text or mapping (halves, then quarters,
..., then single items: delta debugging's reduction), keeping each cut that still fails, within a
budget of checks and seconds; the items themselves are left as they are.

Standard library only.
"""

from __future__ import annotations

import itertools
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

CHECKS, SECONDS = 300, 2.0  # at most this many checks, and this long, spent making one input smaller


def smaller(value: Any, fails: Callable[[Any], bool], checks: int = CHECKS, seconds: float = SECONDS) -> Any:
    """The smallest cut of ``value`` found on which ``fails`` is still true (``value`` itself when no
    cut fails, or it is not a list, tuple, str, bytes or dict)."""
    if type(value) not in (list, tuple, str, bytes, dict):
        return value
    deadline = time.monotonic() + seconds
    current, chunk = value, len(value) // 2
    while chunk >= 1:
        start = 0
        while start < len(current):
            if checks <= 0 or time.monotonic() > deadline:
                return current
            candidate = _without(current, start, chunk)
            checks -= 1
            if fails(candidate):
                current = candidate  # the items after the cut moved to ``start``: try there again
            else:
                start += chunk
        chunk //= 2
    return current


def _without(value: Any, start: int, count: int) -> Any:
    """``value`` without its items ``start`` to ``start + count`` (a mapping: without those keys)."""
    if isinstance(value, dict):
        items = value.items()
        return dict(itertools.chain(itertools.islice(items, start), itertools.islice(items, start + count, None)))
    return value[:start] + value[start + count :]
