"""Plain objects, those of a class that defines neither ``==`` nor ``repr``, seen by their attributes.

``Point(1, 2) == Point(1, 2)`` is False for such a class (``==`` is identity), and its repr is
``<app.Point object at 0x7f...>``: compared that way, two contenders returning equal points
differed, as did one contender's outputs from two processes (read as "depends on the hash seed"),
and the difference named two addresses. Here they are compared and written by their attributes,
as a dataclass would be: ``Point(x=1, y=2)``. Their attributes are what a copy or a pickle of
them carries, so that an object whose state is more than its attributes (a C type) keeps ``==``.

Standard library only: imported by worker processes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_DEFAULT_REPR = " object at 0x"  # in object.__repr__'s text: a fast test before writing by attributes


def is_plain(value: Any) -> bool:
    """Whether ``value``'s ``==`` is identity (its class, and every class above it, leaves ``__eq__``
    to ``object``)."""
    return type(value).__eq__ is object.__eq__


def named_by_address(value: Any) -> bool:
    """Whether ``value`` is a plain object whose repr tells it apart only by its address (a
    generator, a lock): two of them differ even when they would give the same."""
    return is_plain(value) and " at 0x" in repr(value)


def attributes(value: Any) -> dict[str, Any] | None:
    """``value``'s attributes by name, as a copy or a pickle of it carries them (its ``__dict__``
    and set ``__slots__``, or what its ``__getstate__`` gives as a dict); None when its state is
    not that: it cannot be pickled (a function, a generator, a lock), or is rebuilt from
    arguments or from state of another form (an enum member, a C type such as StringIO), where
    attributes would not be all it holds."""
    try:
        reduced = value.__reduce_ex__(4)
    except Exception:
        return None
    if not isinstance(reduced, tuple) or len(reduced) < 3 or reduced[1] != (type(value),) or any(reduced[3:]):
        return None
    state = reduced[2]
    if isinstance(state, dict):
        return dict(state)
    if isinstance(state, tuple) and len(state) == 2 and all(part is None or isinstance(part, dict) for part in state):
        return {**(state[0] or {}), **(state[1] or {})}  # (__dict__, set __slots__)
    return None


def written(value: Any, limit: int) -> str:
    """``repr(value)`` cut to ``limit`` characters; plain objects in it (at any depth of lists,
    tuples, sets and dicts) written by their attributes."""
    text = repr(value)
    if _DEFAULT_REPR in text:
        text = _written(value, limit, set())
    return text if len(text) <= limit else text[:limit] + "..."


def _written(value: Any, limit: int, visiting: set[int]) -> str:
    if id(value) in visiting:  # an object that holds itself, or its holder: as repr writes a list in itself
        return "..."
    visiting.add(id(value))
    try:
        kind = type(value)
        if kind in (list, tuple, set, frozenset) and value:
            items = _joined((_written(item, limit, visiting) for item in value), limit)
            if kind is list:
                return f"[{items}]"
            if kind is tuple:
                return f"({items},)" if len(value) == 1 else f"({items})"
            return f"{{{items}}}" if kind is set else f"frozenset({{{items}}})"
        if kind is dict:
            pairs = (f"{_written(k, limit, visiting)}: {_written(v, limit, visiting)}" for k, v in value.items())
            return "{" + _joined(pairs, limit) + "}"
        state = attributes(value) if kind.__repr__ is object.__repr__ and is_plain(value) else None
        if state is None:
            return repr(value)
        fields = (f"{name}={_written(item, limit, visiting)}" for name, item in state.items())
        return f"{kind.__name__}({_joined(fields, limit)})"
    finally:
        visiting.discard(id(value))


def _joined(parts: Iterator[str], limit: int) -> str:
    """``parts`` joined by ", ", no further than ``limit`` characters past which the text is cut
    anyway: a list of a million objects is not written whole."""
    taken: list[str] = []
    length = 0
    for part in parts:
        taken.append(part)
        length += len(part) + 2
        if length > limit:
            break
    return ", ".join(taken)
