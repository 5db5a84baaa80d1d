"""Generated inputs shaped like the declared cases, for benchmarks without ``@bench.strategy``.

The JSON-like default fits JSON encoders and little else: a median of a list of floats gets dicts
and strings, the reference raises, and most generated inputs are thrown away (seen: 1,464 outside
the domain for 200 kept). Here each declared input's shape becomes a Hypothesis strategy: its type,
nesting, element types and sizes (a list of floats gives lists of floats, a str gives text (also of
the declared text's characters and a few strange ones), bytes give binary, a dict with a few str
keys gives dicts with those keys (of its own mapping type), a NumPy array arrays of its dtype and
dimensions, an object its constructor remakes (a dataclass, a value class) objects made by that
constructor, a named tuple named tuples of its type, a tuple of a few items or of a few unlike ones
gives tuples of its length with each place's type). Sizes are capped so that generated inputs stay
quick to check (perflab.bench.worker.declared_variants varies the declared inputs at full size).
Floats reach a million times the declared magnitude, not the edge of the float range. Integers
inside containers are also drawn at the machine-width limits, and lists of floats also with a large
offset and a tiny spread. One input in ten is made invalid on purpose (None, or a container holding
an element of a foreign type), so that the error behaviour of perflab.bench.worker.integrity is
exercised.

Standard library only at import time; ``st`` is hypothesis.strategies, passed in by perflab.bench.worker.fuzz.
"""

from __future__ import annotations

import collections
import math
import sys
from dataclasses import dataclass

from perflab.bench.arrays import is_array
from perflab.bench.worker.declared_variants import STRANGER_CHARACTERS, WIDTH_LIMITS
from perflab.bench.worker.reordered_inputs import ARGUMENTS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_MAX_SIZE = 50  # items of a generated container
_MAX_TEXT = 200  # characters or bytes of a generated str or bytes
_MAX_POWER_TEXT = 256  # longest text drawn at a power-of-two length
_SAMPLE = 200  # items of a declared container looked at for its element types
_FIXED_KEYS = 20  # dicts with at most this many str keys keep them (records)
_INVALID_ONE_IN = 10  # one generated input in this many is invalid on purpose
_FLOAT_REACH = 1e6  # generated floats reach this many times the declared floats' magnitude
_MAX_ARRAY = 2500  # items of a generated NumPy array
_FLOAT_WIDTH_LARGEST = {2: 2.0**15, 4: 2.0**127, 8: math.inf}  # bytes of a float -> its largest power of two bound


@dataclass
class Derived:
    strategy: Any
    description: str  # e.g. "list of float (up to 50 items), 1 in 10 made invalid"


class _Unsupported(Exception):
    """A value of a type this module cannot generate."""


def one_in(st: Any, n: int) -> Any:
    """A strategy of booleans, True about one draw in ``n``: the last of ``range(n)``. Hypothesis
    shrinks a sampled value toward the first, so a shrunk counterexample leaves the rare branch (an
    invalid input, a declared one at full size, reordered, a near-miss) unless its difference needs
    it; and it draws the first of st.integers(0, n - 1) ~40% of the time, not 1 in n."""
    return st.sampled_from(range(n)).map(lambda draw: draw == n - 1)


def from_values(st: Any, values: list[Any]) -> Derived | None:
    """A strategy of inputs shaped like ``values`` (the declared cases' inputs), or None when one
    of them holds a type that cannot be generated (the caller falls back to its default)."""
    if not values:
        return None
    try:
        valid = _one_of(st, [_shape(st, value) for value in values])
    except (_Unsupported, RecursionError):  # RecursionError: objects nested past the stack (a long linked list)
        return None
    invalid = st.one_of(st.none(), *[_invalid(st, value) for value in values if isinstance(value, (list, tuple))])
    strategy = one_in(st, _INVALID_ONE_IN).flatmap(lambda rare: invalid if rare else valid)
    names = sorted({_describe(value) for value in values})
    return Derived(strategy, f"{' | '.join(names)} (up to {_MAX_SIZE} items), 1 in {_INVALID_ONE_IN} made invalid")


def _shape(st: Any, value: Any) -> Any:
    if value is None:
        return st.none()
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return _integers(st, [value])
    if isinstance(value, float):
        return _floats(st, [value])
    if isinstance(value, str):
        size = min(_MAX_TEXT, max(len(value), 1))
        return st.text(max_size=size) | _like_text(st, value, size) | _power_lengths(st, st.text, len(value))
    if isinstance(value, bytes):
        return st.binary(max_size=min(_MAX_TEXT, max(len(value), 1))) | _power_lengths(st, st.binary, len(value))
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):  # a named tuple: its fields, its type
        return st.tuples(*[_shape(st, item) for item in value]).map(lambda items: type(value)(*items))
    if _is_record(value):
        return st.tuples(*[_shape(st, item) for item in value])
    if isinstance(value, (list, tuple, set, frozenset)):
        items = _in_stable_order(value)[:_SAMPLE]
        elements = _elements(st, items) if items else st.none()
        size = min(_MAX_SIZE, max(len(value), 1))
        if isinstance(value, set):
            return st.sets(elements, max_size=size)
        if isinstance(value, frozenset):
            return st.frozensets(elements, max_size=size)
        made = st.lists(elements, max_size=size)
        if items and all(type(item) is float for item in items):
            made |= _offset_floats(st, size)
        return made.map(tuple) if isinstance(value, tuple) else made
    if isinstance(value, dict):
        keys = list(value)[:_SAMPLE]
        if len(value) <= _FIXED_KEYS and all(isinstance(key, str) for key in keys):
            mapping = st.fixed_dictionaries({key: _shape(st, value[key]) for key in keys})
        else:
            mapping = st.dictionaries(
                _elements(st, keys), _elements(st, [value[k] for k in keys]), max_size=min(_MAX_SIZE, len(value))
            )
        return mapping if type(value) is dict else mapping.map(_retyped_as(value))
    if is_array(value):
        return _arrays(st, value)
    if isinstance(value, (type, range, complex)) or callable(value):
        raise _Unsupported(type(value).__name__)
    return _remade(st, value)


def _remade(st: Any, value: Any) -> Any:
    """Objects like ``value`` made by its class's own constructor, each argument shaped like the
    value ``value`` holds under that name: a dataclass, an attrs or pydantic class, a value class
    whose ``__init__`` keeps its parameters as attributes, a Fraction. Made by the constructor,
    not assembled attribute by attribute, so that what it checks or computes still holds (an
    invariant a correct contender may rely on); an argument it refuses gives the declared object
    instead. Raises _Unsupported unless calling the class with those arguments remakes ``value``."""
    kind = type(value)
    arguments = _constructor_arguments(value)
    if _holds_a(kind, list(arguments.values())):  # a node of nodes: each level a strategy, past Hypothesis's buffer
        raise _Unsupported(kind.__name__)
    try:
        remade = kind(**arguments)
        same = bool(remade == value if kind.__eq__ is not object.__eq__ else vars(remade) == vars(value))
    except Exception:  # any failure to remake it (or an == that is no answer): not generated here
        same = False
    if not same:
        raise _Unsupported(kind.__name__)

    def made(drawn: dict[str, Any]) -> Any:
        try:
            return kind(**drawn)
        except Exception:  # an argument the constructor refuses: not an input of this kind
            return value

    return st.fixed_dictionaries({name: _shape(st, item) for name, item in arguments.items()}).map(made)


def _retyped_as(value: dict) -> Any:
    """A function giving a generated dict ``value``'s own mapping type (a Counter, an OrderedDict,
    a defaultdict with its factory), so that the methods the operation calls on it exist (a
    Counter's most_common: as plain dicts, every input was rejected); a plain dict where that fails."""
    kind: Any = type(value)
    factory = getattr(value, "default_factory", None)

    def retyped(drawn: dict) -> Any:
        try:
            return kind(factory, drawn) if isinstance(value, collections.defaultdict) else kind(drawn)
        except Exception:  # a mapping type whose constructor takes something else
            return drawn

    return retyped


def _holds_a(kind: type, values: list[Any]) -> bool:
    """Whether an instance of ``kind`` is among ``values`` or inside their containers (looked at
    up to _SAMPLE objects)."""
    stack, seen = list(values), 0
    while stack and seen < _SAMPLE:
        item = stack.pop()
        seen += 1
        if isinstance(item, kind):
            return True
        if type(item) in (list, tuple, set, frozenset):
            stack.extend(item)
        elif type(item) is dict:
            stack.extend(item.values())
    return False


def _constructor_arguments(value: Any) -> dict[str, Any]:
    """The keyword arguments that name ``value``'s attributes in its class's constructor (a
    dataclass's are its init fields); raises _Unsupported when there are none, or when a required
    parameter is not an attribute or cannot be passed by name."""
    import inspect  # here only: most inputs are built-in types

    try:
        parameters = inspect.signature(type(value)).parameters.values()
    except (TypeError, ValueError):  # a built-in class without a signature
        raise _Unsupported(type(value).__name__) from None
    arguments = {}
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is not parameter.POSITIONAL_ONLY and hasattr(value, parameter.name):
            arguments[parameter.name] = getattr(value, parameter.name)
        elif parameter.default is parameter.empty:
            raise _Unsupported(type(value).__name__)
    if not arguments:
        raise _Unsupported(type(value).__name__)
    return arguments


def _is_record(value: Any) -> bool:
    """A tuple of a few items (the arguments of one call, as perflab.bench.worker.reordered_inputs
    takes them) or of a few unlike items (arguments and keyword arguments, a name and a count) is a
    record: generated at its length with each place's type. Generated as a list of merged types,
    ``(args, {})`` became ``(args, ())`` and a pair lost an item: inputs no caller passes, which the
    reference rejects (the near misses already try those, perflab.bench.worker.rejected_inputs)."""
    if type(value) is not tuple:
        return False
    return len(value) <= ARGUMENTS or (len(value) <= _FIXED_KEYS and len({type(item) for item in value}) > 1)


def _elements(st: Any, items: list[Any]) -> Any:
    """One strategy for the elements of a container: numbers and text merged by type (their
    ranges from all samples), containers by their first few samples of each type."""
    by_type: dict[type, list[Any]] = {}
    for item in items:
        by_type.setdefault(type(item), []).append(item)
    strategies = []
    for kind, samples in by_type.items():
        if kind is float:
            strategies.append(_floats(st, samples))
        elif kind is int:  # data, not a size: fixed-width code overflows at the machine-width limits
            strategies.append(_integers(st, samples) | st.sampled_from(WIDTH_LIMITS))
        else:
            strategies.append(_one_of(st, [_shape(st, sample) for sample in samples[:3]]))
    return _one_of(st, strategies)


def _arrays(st: Any, value: Any) -> Any:
    """NumPy arrays like ``value``: its dtype and number of dimensions, sides up to _MAX_SIZE (and
    at most _MAX_ARRAY items), elements of its kind in its items' range (machine-width limits
    among the integers, as in lists). As lists, every array method a contender called raised
    where the reference, taking lists too, did not: a correct contender was flagged. Booleans,
    integers and floats only; another dtype is not generated. NumPy is taken from sys.modules,
    as perflab.bench.arrays does: the declared array was made by it."""
    numpy = sys.modules["numpy"]
    kind, samples = value.dtype.kind, value.ravel()[:_SAMPLE].tolist()
    if kind == "b":
        elements = st.booleans()
    elif kind == "f" and value.dtype.itemsize in _FLOAT_WIDTH_LARGEST:
        elements = _floats(st, samples or [1.0], width=value.dtype.itemsize * 8)
    elif kind in "iu":
        info = numpy.iinfo(value.dtype)
        bound = 2 * max((abs(x) for x in samples), default=0) + 10
        limits = [n for n in WIDTH_LIMITS if info.min <= n <= info.max]
        elements = st.integers(max(int(info.min), -bound), min(int(info.max), bound)) | st.sampled_from(limits)
    else:
        raise _Unsupported(f"array of {value.dtype}")
    dimensions, dtype = value.ndim, value.dtype
    side = max(1, min(_MAX_SIZE, max(value.shape, default=1), int(_MAX_ARRAY ** (1 / max(dimensions, 1)))))
    shapes = st.lists(st.integers(0, side), min_size=dimensions, max_size=dimensions).map(tuple)

    def filled(shape: tuple[int, ...]) -> Any:
        size = math.prod(shape)
        items = st.lists(elements, min_size=size, max_size=size)
        return items.map(lambda drawn: numpy.array(drawn, dtype=dtype).reshape(shape))

    return shapes.flatmap(filled)


def _floats(st: Any, samples: list[float], width: int = 64) -> Any:
    """Floats up to _FLOAT_REACH times the samples' magnitude (both signs, subnormals included):
    far past the declared values, but not at the edge of the float range, where a square or a
    sum of a few items overflows to inf (2**512 squared) and every formula other than exact
    arithmetic gives inf or NaN: a limit of floating point, not a broken optimization. Declared
    NaN or infinities say the whole range is the domain."""
    if any(math.isnan(x) or math.isinf(x) for x in samples):
        return st.floats(allow_nan=any(math.isnan(x) for x in samples), allow_infinity=True, width=width)
    bound = _FLOAT_REACH * max(max(abs(x) for x in samples), 1.0)
    if width < 64:  # a power of two: Hypothesis wants bounds that the narrower float holds exactly
        bound = min(2.0 ** math.ceil(math.log2(bound)), _FLOAT_WIDTH_LARGEST[width // 8])
    return st.floats(-bound, bound, width=width)


def _like_text(st: Any, text: str, size: int) -> Any:
    """Text of the declared text's own characters with perflab's stranger ones among them: words
    and digits where the declared text has them, and now and then a character that case mapping
    or an ASCII fast path gets wrong. Free text draws any code point and rarely those few."""
    alphabet = sorted(set(text[: _MAX_TEXT * 5]) - set(STRANGER_CHARACTERS)) + list(STRANGER_CHARACTERS)
    return st.text(alphabet=alphabet, max_size=size)


def _power_lengths(st: Any, text: Any, declared: int) -> Any:
    """Text (``st.text`` or ``st.binary``) exactly 2**k long, up to the declared length and
    _MAX_POWER_TEXT (longer draws exhaust Hypothesis' buffer): where a loop over fixed-size chunks
    mishandles the last full chunk. Free sizes rarely land there."""
    powers = [2**k for k in range(min(max(declared, 2), _MAX_POWER_TEXT).bit_length())]
    return st.sampled_from(powers).flatmap(lambda n: text(min_size=n, max_size=n))


def _offset_floats(st: Any, size: int) -> Any:
    """Floats with a large offset and a tiny spread (1e9 + x, |x| <= 1): where summing squares or
    subtracting means loses every digit (catastrophic cancellation), and free draws rarely go."""
    offsets = st.sampled_from([1e6, 1e9, 1e12, -1e9])
    spreads = st.lists(st.floats(-1, 1), min_size=2, max_size=max(size, 2))
    return st.tuples(offsets, spreads).map(lambda drawn: [drawn[0] + x for x in drawn[1]])


def _integers(st: Any, samples: list[int]) -> Any:
    """Integers of the samples' magnitude, negatives included: an int may be a size or a count,
    and the reference's time grows with it (divisors of 2**62 never finish)."""
    bound = 2 * max(abs(x) for x in samples) + 10
    return st.integers(-bound, bound)


def _invalid(st: Any, value: list | tuple) -> Any:
    """Containers like ``value`` with one element of a foreign type inserted: None where the items
    are never None, "?" where they are never str."""
    items = list(value)[:_SAMPLE]
    foreign = ([] if any(item is None for item in items) else [st.none()]) + (
        [] if any(isinstance(item, str) for item in items) else [st.just("?")]
    )
    if not foreign:
        return st.none()
    elements = _elements(st, items) if items else st.none()
    made = st.tuples(st.lists(elements, max_size=_MAX_SIZE), st.one_of(*foreign), st.integers(0, _MAX_SIZE)).map(
        lambda parts: parts[0][: parts[2]] + [parts[1]] + parts[0][parts[2] :]
    )
    return made.map(tuple) if isinstance(value, tuple) else made


def _in_stable_order(value: list | tuple | set | frozenset) -> list[Any]:
    """The items of ``value``; a set's in an order that does not depend on PYTHONHASHSEED, so that
    the same seed generates the same inputs in every worker (equivalence runs two hash seeds)."""
    if not isinstance(value, (set, frozenset)):
        return list(value)
    return sorted(value, key=lambda item: (type(item).__name__, repr(item)))


def _one_of(st: Any, strategies: list[Any]) -> Any:
    return strategies[0] if len(strategies) == 1 else st.one_of(*strategies)


def _describe(value: Any) -> str:
    if _is_record(value):
        return f"tuple ({', '.join(_describe(item) for item in value)})"
    if type(value) in (list, tuple, set, frozenset):
        kinds = sorted({type(item).__name__ for item in _in_stable_order(value)[:_SAMPLE]})
        return f"{type(value).__name__} of {'/'.join(kinds) or 'nothing'}"
    if type(value) is dict:
        return f"dict of {len(value)} keys" if len(value) <= _FIXED_KEYS else "dict"
    if is_array(value):
        return f"{value.ndim}-D array of {value.dtype}"
    return type(value).__name__  # a scalar, a named tuple, or an object remade by its constructor
