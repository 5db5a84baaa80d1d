"""Generated inputs at the declared cases' full size, and at the boundaries optimizations miss.

Generated inputs are small (a few dozen items, a couple hundred characters) so that they stay
quick to check, but the declared cases are often kilobytes: a contender that looks only at a
prefix, or one wrong only past a power-of-two length, passes on small inputs and on the declared
cases alike. Here each declared input is changed a little at its full size (one item changed at
the start, the middle, the end or anywhere; cut to a length around a power of two; extended past
its size), and integers inside data are drawn at the machine-width limits (2**31, 2**32, 2**63,
2**64, each +-1, within what 64 bits hold) where fixed-width arithmetic overflows.

Standard library only at import time; ``st`` is hypothesis.strategies, passed in by perflab.bench.worker.fuzz.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

# Declared inputs with more objects than this (text counts as one) are left to the declared-case
# check: each full-size variant is copied, compared and checked for mutation, and a document of
# a thousand records made fuzzing four times slower.
_MAX_NODES = 5000
# What text the declared cases rarely hold and real text does: NUL, a non-ASCII letter, a line
# separator, a character outside the BMP, a quote; and letters whose case mapping leaves one
# character or enters ASCII, where ASCII fast paths and case-insensitive patterns go wrong: the
# Kelvin sign (lower() is "k", and re.IGNORECASE's [a-z] matches it), dotted capital I (lower()
# is two characters), sharp s (upper() and casefold() are "SS"/"ss"), long s (upper() is "S").
STRANGER_CHARACTERS = "\x00\u00e9\u2028\U0001f600'\u212a\u0130\u00df\u017f"
# Within what a 64-bit integer holds, signed or unsigned ([-2**63, 2**64 - 1]): the range every
# JSON library and most native code accept; past it a contender's refusal is a limit, not a bug.
WIDTH_LIMITS = sorted(
    {
        n
        for bits in (31, 32, 63, 64)
        for delta in (-1, 0, 1)
        for n in (2**bits + delta, -(2**bits) + delta)
        if -(2**63) <= n <= 2**64 - 1
    }
)


def around_declared(st: Any, values: list[Any], vary: Callable[[Any], Any]) -> Any | None:
    """Full-size variants of the declared sequences (str, bytes, list, tuple) in ``values``, or None
    when there is none of a size worth varying. ``vary(item)``: another item of the same type, or
    None (perflab.bench.worker.copies.variant)."""
    usable = [
        value
        for value in values
        if isinstance(value, (str, bytes, list, tuple)) and len(value) > 1 and _nodes(value, _MAX_NODES) <= _MAX_NODES
    ]
    if not usable:
        return None
    return st.sampled_from(usable).flatmap(lambda value: _around(st, value, vary))


def _around(st: Any, value: Any, vary: Callable[[Any], Any]) -> Any:
    size = len(value)
    powers = [2**k for k in range(size.bit_length()) if 2**k < size]
    near_powers = sorted({n for p in powers for n in (p - 1, p + 1) if 0 <= n < size})
    # Exact powers half the time: a chunked loop goes wrong at multiples of its chunk size. A cut
    # is also changed: the declared items may cancel out at exactly 2**k (XOR of 0..63 is 0).
    lengths = st.sampled_from(powers) | st.sampled_from(near_powers or powers)
    cut = lengths.flatmap(lambda n: st.just(value[:n]) | _changed(st, value[:n], vary))
    extended = st.integers(1, size).map(lambda n: value + value[:n])
    return _changed(st, value, vary) | cut | extended


def _changed(st: Any, value: Any, vary: Callable[[Any], Any]) -> Any:
    """``value`` with one item changed: at the start, the middle, the end or anywhere."""
    size = len(value)
    if not size:
        return st.just(value)
    places = st.sampled_from([0, size // 2, size - 1]) | st.integers(0, size - 1)
    return st.tuples(places, st.integers(0, len(STRANGER_CHARACTERS))).map(
        lambda drawn: _with_item_changed(value, drawn[0], drawn[1], vary)
    )


def _with_item_changed(value: Any, index: int, kind: int, vary: Callable[[Any], Any]) -> Any:
    """``value`` with the item at ``index`` changed: to a neighbour of the same kind (``kind`` 0),
    or, in text, to the kind-th of STRANGER_CHARACTERS (in bytes, its first UTF-8 byte)."""
    if isinstance(value, str):
        new = STRANGER_CHARACTERS[kind - 1] if kind else chr(ord(value[index]) ^ 1)
        return value[:index] + new + value[index + 1 :]
    if isinstance(value, bytes):
        new_byte = STRANGER_CHARACTERS[kind - 1].encode()[0] if kind else value[index] ^ 1
        return value[:index] + bytes([new_byte]) + value[index + 1 :]
    items = list(value)
    changed = vary(items[index])
    items[index] = items[index] if changed is None else changed
    return tuple(items) if isinstance(value, tuple) else items


def _nodes(value: Any, limit: int) -> int:
    """Objects in ``value`` (containers and their items, recursively; str and bytes count as one),
    counted up to just past ``limit``."""
    count, stack = 0, [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return count
