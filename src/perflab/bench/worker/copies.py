"""Copies and variants of a case's input, made inside a worker: a fresh equal copy that shares no
object with the input, and a variant (another value of the same type and size). Used by the fuzzing
patterns (perflab.bench.worker.fuzz) and by every timing worker's first-call warm-up
(perflab.bench.worker.timing_checks), which must not import the fuzzing machinery. Standard library only."""

from __future__ import annotations

import copy

from perflab.bench.arrays import is_array

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any


def fresh_copy(value: Any) -> Any:
    """An equal object that is not ``value`` (a str or bytes of length 0 or 1 may be shared).

    Built-in containers, str and bytes are rebuilt by hand rather than by copy.deepcopy, which
    returns str, bytes and tuples as they are, and allocates a memo dict before the copy: that
    temporary would take the slot just freed, and the id-reuse pattern wants the copy there.
    Internal sharing is not preserved (a list holding one dict twice gets two equal dicts).
    """
    try:
        return _rebuilt(value)
    except RecursionError:  # a cycle: deepcopy handles those
        return copy.deepcopy(value)


def _rebuilt(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _rebuilt(item) for key, item in value.items()}
    if kind is list:
        return [_rebuilt(item) for item in value]
    if kind is tuple:
        return tuple([_rebuilt(item) for item in value])
    if kind is str:
        return "".join((value, ""))  # one allocation, the result
    if kind is bytes:
        return b"".join((value, b""))
    return copy.deepcopy(value)


def variant(value: Any) -> Any:
    """A different value of the same type and about the same size, or None if there is none
    (an array: a copy reversed along its first axis, which only a palindrome leaves equal)."""
    if is_array(value):
        return value[::-1].copy() if value.ndim and len(value) > 1 else None
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value ^ 1
    if isinstance(value, float):
        return 0.5 if value != value or value + 1.0 == value else value + 1.0
    if isinstance(value, str) and value:
        return value[:-1] + chr(ord(value[-1]) ^ 1)
    if isinstance(value, bytes) and value:
        return value[:-1] + bytes([value[-1] ^ 1])
    if isinstance(value, (list, tuple, dict)):
        changed = fresh_copy(value) if not isinstance(value, tuple) else list(value)
        for key in changed if isinstance(changed, dict) else range(len(changed)):
            item = variant(changed[key])
            if item is not None:
                changed[key] = item
                return tuple(changed) if isinstance(value, tuple) else changed
    return None
