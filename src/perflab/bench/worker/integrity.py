"""Checks that a contender does the same thing beyond its output: it leaves its input as the
reference does, hands out outputs that callers own, and rejects what the reference rejects.

Used inside worker processes by the declared-case check (perflab.bench.worker.checks), by fuzzing
(perflab.bench.worker.fuzz) and by timing (a cheap digest of the input after the timed values), so that the
three judge alike. The reasoning and the limits: docs/equivalence.md.

Standard library only: this module runs under interpreters where perflab is not installed.
"""

from __future__ import annotations

import copy
import pickle

from perflab.bench.arrays import share_memory, writeable
from perflab.bench.comparators import first_difference

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, frozenset, range, type(Ellipsis))
_SHARING_SCAN_LIMIT = 1000  # items of a container inspected for shared parts: bounded cost
_MUTATED_MARK = object()  # what the sharing check adds to a first output to see the second change
# Exception classes too general to relate two exceptions: both being an Exception says nothing.
_TOO_GENERAL = (BaseException, Exception, object)

# The statuses these checks give (re-exported by perflab.results.model, which workers cannot import).
MUTATES_INPUT, SHARES_OUTPUT = "mutates input", "shares output"
ERRORS_SAME, ERRORS_ANY, ERRORS_IGNORE = "same", "any", "ignore"
ERROR_POLICIES = (ERRORS_SAME, ERRORS_ANY, ERRORS_IGNORE)


def snapshot(value: Any) -> Any:
    """A deep copy of ``value`` (internal sharing preserved): through pickle, several times faster
    than copy.deepcopy on large inputs, else by copy.deepcopy."""
    try:
        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return copy.deepcopy(value)


def changed(before: Any, after: Any) -> str | None:
    """How ``after`` differs from its snapshot ``before``, or None when it is the same.

    Values are compared exactly (equal values of equal types; NaN equals NaN); objects without
    value equality (``==`` is identity) are compared by their pickle bytes instead.
    """
    difference = first_difference(before, after, sides=("before", "after"))
    if difference is None:
        return None
    try:
        if pickle.dumps(before, protocol=4) == pickle.dumps(after, protocol=4):
            return None
    except Exception:
        pass
    return difference


def digest(value: Any) -> str | None:
    """A cheap fingerprint of ``value`` (its pickle bytes hashed), or None when it cannot be pickled."""
    import hashlib  # here: it loads OpenSSL, which only timing jobs need (a counted worker's start-up)

    try:
        return hashlib.blake2b(pickle.dumps(value, protocol=4), digest_size=16).hexdigest()
    except Exception:
        return None


def mutation(reference_before: Any, reference_after: Any, before: Any, after: Any, declared: bool) -> str | None:
    """Why the contender's effect on its input is not the reference's, or None.

    ``before``/``after``: the contender's input before (a snapshot) and after its call; the same
    for the reference. A contender that leaves its input alone is always fine unless the
    benchmark declares that the operation mutates (``declared``): then its input must end as
    the reference's does.
    """
    own = changed(before, after)
    if own is None and not declared:
        return None
    if changed(reference_after, after) is None:
        return None
    if changed(reference_before, reference_after) is None:
        return f"the contender changed its input, which the reference leaves unchanged: {own}"
    difference = first_difference(reference_after, after) or "they differ"
    if own is None:  # a declared change the contender never made (a copy changed instead)
        return f"the contender leaves its input unchanged, which the reference changes: {difference}"
    return f"the contender changed its input differently from the reference: {difference}"


def shared_output(first: Any, second: Any) -> str | None:
    """How two outputs of calls on equal inputs share state, or None.

    Shared when they are the same mutable object (or hold one at the same place), or when
    changing the first changes the second: a caller that modifies its result would then change
    what every later caller gets.
    """
    found = _shared_part(first, second, "", 0)
    if found is not None:
        place, part, same = found
        how = f"the same {type(part).__name__} object" if same else f"{type(part).__name__}s sharing memory"
        return (
            f"two calls on equal inputs returned {how}"
            + (f" at {place}" if place else "")
            + ": a caller changing its result changes the other's"
        )
    try:
        before = snapshot(second)
    except Exception:
        return None
    if _mutate(first) and changed(before, second) is not None:
        return "changing the first call's output changed the second call's output"
    return None


def _shared_part(first: Any, second: Any, path: str, depth: int) -> tuple[str, Any, bool] | None:
    """(where, what, the same object) of the first mutable object both outputs hold at the same
    place, or of two writable buffers there that overlap in memory (views of one array), or None."""
    if first is second and _mutable(first):
        return path, first, True
    if writeable(first) and share_memory(first, second):
        return path, first, False
    if depth > 3 or type(first) is not type(second):
        return None
    if isinstance(first, (list, tuple)):
        places = [(f"{path}[{index}]", a, b) for index, a, b in zip(range(_SHARING_SCAN_LIMIT), first, second)]
    elif isinstance(first, dict):
        places = [
            (f"{path}[{key!r}]", first[key], second[key])
            for _, key in zip(range(_SHARING_SCAN_LIMIT), first)
            if key in second
        ]
    else:
        return None
    for place, a, b in places:
        found = _shared_part(a, b, place, depth + 1)
        if found is not None:
            return found
    return None


def _mutable(value: Any) -> bool:
    if isinstance(value, _IMMUTABLE):
        return False
    if isinstance(value, tuple):
        return False  # its items are inspected one by one
    if isinstance(value, (list, dict, set, bytearray)) or writeable(value):
        return True
    # An instance of a user class with attributes can be changed by a caller; classes, functions
    # and modules are shared by design.
    return hasattr(value, "__dict__") and not isinstance(value, (type, type(len), type(_mutable), type(copy)))


def _mutate(value: Any) -> bool:
    """Change a list, dict, set or bytearray in place; False when ``value`` is none of those."""
    if isinstance(value, list):
        value.append(_MUTATED_MARK)
    elif isinstance(value, dict):
        value[_MUTATED_MARK] = _MUTATED_MARK
    elif isinstance(value, set):
        value.add(_MUTATED_MARK)
    elif isinstance(value, bytearray):
        value.append(0)
    else:
        return False
    return True


def error_difference(expected: BaseException, actual: BaseException | None, policy: str) -> str | None:
    """Where the reference raised ``expected``: why the contender's ``actual`` (None: it returned a
    value) is not the same behaviour under ``policy`` ("same", "any" or "ignore"), or None.

    "same": the contender must raise, and a related exception where the reference's is part of
    its contract (a ValueError for a bad port: callers catch it). A TypeError or AttributeError
    from the reference says only that the input is of a type the operation does not take
    (garbage: None, a str among ints); no caller relies on which exception that gives, so any
    exception from the contender is the same behaviour there.
    """
    if policy == ERRORS_IGNORE:
        return None
    raised = f"the reference raised {type(expected).__name__}: {_one_line(expected)}"
    if actual is None:
        return f"{raised}, the contender returned a value (it accepts input the reference rejects)"
    if policy == ERRORS_ANY or isinstance(expected, _WRONG_TYPE):
        return None
    if uncaught(type(expected), type(actual)):
        return (
            f"{raised}, the contender raised {type(actual).__name__}: {_one_line(actual)}, which a handler of "
            f"{type(expected).__name__} does not catch (relax with Benchmark(errors='any'))"
        )
    if related(type(expected), type(actual)):
        return None
    return (
        f"{raised}, the contender raised the unrelated {type(actual).__name__}: {_one_line(actual)} "
        "(relax with Benchmark(errors='any'))"
    )


# Python reports a value of the wrong type as either of these, depending only on how the code
# touches it (None.sort() vs sorted(None)): two correct implementations may differ so.
_WRONG_TYPE = (TypeError, AttributeError)


def uncaught(expected: type, actual: type) -> bool:
    """Whether a caller's ``except expected:`` misses ``actual`` where the reference's exception is
    a contract of its own: a class of the user's code (a subclass of ValueError, say: callers
    catch it by name), or a subclass of what the contender raises (the contender raises only the
    base). Between built-in siblings (KeyError, IndexError) ``related`` decides."""
    if issubclass(actual, expected):
        return False
    return expected.__module__ != "builtins" or issubclass(expected, actual)


def related(first: type, second: type) -> bool:
    """One is a subclass of the other, they share a base more specific than Exception (KeyError
    and IndexError are both LookupErrors), or both say "wrong type" (TypeError, AttributeError).
    TypeError and ValueError are unrelated."""
    if issubclass(first, second) or issubclass(second, first):
        return True
    if issubclass(first, _WRONG_TYPE) and issubclass(second, _WRONG_TYPE):
        return True
    common = set(first.__mro__) & set(second.__mro__)
    return any(base not in _TOO_GENERAL for base in common)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 120 else text[:117] + "..."
