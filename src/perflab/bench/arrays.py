"""NumPy arrays seen by the equivalence checks, without importing NumPy.

The measured side is standard library only: a worker never imports NumPy itself. A value that is
a NumPy array was made by NumPy, so NumPy is already in ``sys.modules`` and is used from there.
Arrays have no single truth value (``a == b`` is an array), so they are compared by their shape,
dtype and values, and they are mutable: two outputs that share memory share state.
"""

from __future__ import annotations

import sys

from perflab.bench.versus import SIDES, versus

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any


def is_array(value: Any) -> bool:
    """A NumPy ndarray (or subclass), recognised by its type's module: no import needed."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def array_difference(expected: Any, actual: Any, where: str = "", sides: tuple[str, str] = SIDES) -> str | None:
    """How two arrays differ (shape, dtype, then the first differing element), or None; ``sides``
    names them.

    NaN equals NaN where both have it at the same place, as the exact comparator does for floats.
    """
    numpy = sys.modules["numpy"]
    if expected.shape != actual.shape:
        return f"{where}shape: {versus(sides, expected.shape, actual.shape)}"
    if expected.dtype != actual.dtype:
        return f"{where}dtype: {versus(sides, expected.dtype, actual.dtype)}"
    differ = numpy.asarray(expected != actual, dtype=bool)
    if expected.dtype.kind in "fc":  # NaN at the same place in both is the same value
        differ &= ~(numpy.isnan(expected) & numpy.isnan(actual))
    if not differ.any():
        return None
    index = tuple(int(i) for i in numpy.argwhere(differ)[0])
    shown = index[0] if len(index) == 1 else list(index)
    return (
        f"{where}element {shown}: {versus(sides, repr(expected[index]), repr(actual[index]))} "
        f"({int(differ.sum())} of {differ.size} elements differ)"
    )


def share_memory(first: Any, second: Any) -> bool:
    """Whether two buffers overlap in memory: NumPy arrays (numpy.shares_memory, exact) or
    memoryviews and bytearrays (a memoryview of the same object)."""
    if is_array(first) and is_array(second):
        return bool(sys.modules["numpy"].shares_memory(first, second))
    if isinstance(first, memoryview) and isinstance(second, memoryview):
        return first.obj is second.obj
    return False


def writeable(value: Any) -> bool:
    """A buffer a caller can write into: an array with its WRITEABLE flag, a bytearray, a
    writable memoryview."""
    if is_array(value):
        return bool(value.flags.writeable)
    if isinstance(value, memoryview):
        return not value.readonly
    return isinstance(value, bytearray)
