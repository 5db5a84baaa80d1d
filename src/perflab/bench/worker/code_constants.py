"""The values the code under test names and compares against, and inputs built around them.

Random draws almost never meet the values a function singles out: a window of 7 items, a
threshold of 1000, a packing multiplier, a separator. Fuzzers have long taken such values from the
code itself (dictionaries, comparison operands, value profiles). Here they come from the reference
and a contender, the functions and comprehensions inside them, and the pure-Python functions they
call by name (of their own module, or of another module that is neither the standard library's
nor an installed library's), a few levels down:

- the operands of their comparisons and ``in`` tests (``COMPARE_OP``, ``CONTAINS_OP`` in the
  bytecode): a literal, a module-level name, a default argument, a closure's cell, the items of a
  small container tested with ``in``; and, recorded at run time on a few inputs, the values of
  the plain names compared (a local ``limit = minutes * 60``), kept where they stay the same
  across inputs (a value that follows the input is the input's, not the code's);
- the constants of the compiled code (``co_consts``, where Python has already folded ``1 << 64``
  and ``2**31``), module-level numbers and short texts it reads, its default arguments and cells.

Compared values come first, then named ones, then the rest. Inputs are built around them: two
items exactly that far apart (and one more), the value and its neighbours in place of an item (or
of a field of a record item: a tuple, a dict), the value's text in place of a number in text, a
text constant put inside text.

Standard library only.
"""

from __future__ import annotations

import contextlib
import dis
import itertools
import math
import re
import sys
import time
import types
from dataclasses import dataclass, field

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

_FUNCTIONS = 30  # functions looked into, callees included
_KEPT = 16  # constants of each kind kept, compared and named ones first
_LONGEST_TEXT = 16  # characters of a text constant: longer ones are messages, not formats
_LARGEST = 2**64  # integers past this are not data anyone passes
_LONGEST_SIZED = 1024  # items a sequence is grown to, to have as many as a constant says
_CONTAINER = 16  # items of a container tested with ``in`` (or named) taken one by one
_NUMBER = re.compile(r"\d+")
# How a value was found, most telling first: the order constants are tried in.
COMPARED, NAMED, LITERAL, TRIVIAL = 0, 1, 2, 3
_TESTS = {"COMPARE_OP", "CONTAINS_OP"}
TRACED_CALLS = 4  # inputs of each side whose comparisons are recorded at run time
_TRACED_EVENTS = 20_000  # events of each traced call (opcodes; comparisons only, on 3.12+), at most
_TRACED_SECONDS = 0.1  # and seconds, whichever comes first


@dataclass
class Constants:
    integers: list[int] = field(default_factory=list)
    floats: list[float] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    compared: int = 0  # of them, values the code compares against (in its bytecode or at run time)
    # The code objects looked into, with each one's module namespace: where comparisons are recorded.
    codes: dict[types.CodeType, dict] = field(default_factory=dict, repr=False)
    found: _Found | None = field(default=None, repr=False)  # every value found, and how

    def count(self) -> int:
        return len(self.integers) + len(self.floats) + len(self.texts)

    def largest_integer(self) -> int:
        return max((abs(n) for n in self.integers), default=0)


class _Found:
    """Values found so far, each with the most telling way it was found (COMPARED ... TRIVIAL)."""

    def __init__(self) -> None:
        self.tiers: dict[tuple[type, Any], int] = {}

    def add(self, value: Any, tier: int) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, (tuple, list, set, frozenset, dict)) and len(value) <= _CONTAINER:
            for item in sorted(value, key=repr):  # a set's order is the hash seed's
                if not isinstance(item, (tuple, list, set, frozenset, dict)):
                    self.add(item, tier)
            return
        if isinstance(value, int) and abs(value) <= _LARGEST:
            tier = max(tier, TRIVIAL) if value in (-1, 0, 1) else tier  # every loop names these
        elif not (isinstance(value, float) and math.isfinite(value)) and not (
            isinstance(value, str) and 0 < len(value) <= _LONGEST_TEXT
        ):
            return
        key = (type(value), value)
        self.tiers[key] = min(tier, self.tiers.get(key, tier))

    def constants(self, codes: dict[types.CodeType, dict]) -> Constants:
        def of(kind: type) -> list[Any]:
            found = [(tier, value) for (each, value), tier in self.tiers.items() if each is kind]
            return _kept(found)

        integers, floats, texts = of(int), of(float), of(str)
        compared = sum(
            1
            for (kind, value), tier in self.tiers.items()
            if tier == COMPARED and value in {int: integers, float: floats, str: texts}[kind]
        )
        return Constants(integers, floats, texts, compared, codes, self)


def mined(*functions: Any) -> Constants:
    """The constants named by ``functions`` (callables: functions, bound methods, partials,
    objects with ``__call__``) and by the pure-Python functions they call, compared values first."""
    found = _Found()
    # functions, and code objects nested in them as (code, namespace, docstring)
    queue: list[Any] = [each for function in functions for each in [_function_of(function)] if each]
    codes: dict[types.CodeType, dict] = {}
    while queue and len(codes) < _FUNCTIONS:
        entry = queue.pop(0)
        function = entry if isinstance(entry, types.FunctionType) else None
        code, namespace, doc = (function.__code__, function.__globals__, function.__doc__) if function else entry
        if code in codes:
            continue
        codes[code] = namespace
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                queue.append((constant, namespace, None))
            elif constant != doc:
                found.add(constant, LITERAL)
        _compared_operands(code, namespace, found)
        names = _names(code)  # a module's attribute may be read in a comprehension inside
        named = [namespace.get(name) for name in code.co_names] + _defaults(function)
        for value in named:
            queue += _callees(value, names)
            if not isinstance(value, (types.FunctionType, types.ModuleType, type)):
                found.add(value, NAMED)  # a module-level number, text or small container; a default
    return found.constants(codes)


def with_compared(constants: Constants, values: Iterable[Any]) -> Constants:
    """``constants`` with ``values`` (recorded at run time) among the compared ones, first."""
    found = _Found()
    found.tiers = dict(constants.found.tiers) if constants.found is not None else {}
    for value in values:
        found.add(value, COMPARED)
    return found.constants(constants.codes)


def compared_at_run_time(constants: Constants, calls: list[tuple[Callable, Any]]) -> list[Any]:
    """The values that the plain names of the code's comparisons held while ``calls`` ran
    (``(function, argument)``; what they raise is ignored): each comparison's operands, kept where
    one stayed the same across the inputs and is not an item of them. Recorded at the comparisons
    of the code objects of ``constants`` only, within _TRACED_EVENTS and _TRACED_SECONDS a call."""
    sites = {code: _operand_sites(code) for code in constants.codes}
    sites = {code: where for code, where in sites.items() if where}
    if not sites or not calls:
        return []
    # (code, offset, operand) -> the values seen there, one set per input
    seen: dict[tuple[Any, int, int], list[set]] = {}
    inputs: list[set] = []
    for function, argument in calls:
        values: dict[tuple[Any, int, int], set] = {}
        _traced(function, argument, sites, values)
        inputs.append(_scalars(argument))
        for key, held in values.items():
            seen.setdefault(key, []).append(held)
    items = set().union(*inputs)
    kept: list[Any] = []
    for per_input in seen.values():
        common = set.intersection(*per_input) if len(per_input) > 1 or len(calls) == 1 else set()
        kept += sorted((v for v in common if _hashable_scalar(v) and v not in items), key=repr)
    return kept


def _traced(function: Callable, argument: Any, sites: dict, values: dict) -> None:
    """Call ``function(argument)``, recording the operands at ``sites`` (code -> offset ->
    operands) into ``values``: with ``sys.monitoring`` on Python 3.12+ (instruction events, each
    one that is not a comparison disabled after its first call; ``f_trace_opcodes`` set from a
    trace function gives no opcode events there), with an opcode trace function before."""
    budget = [_TRACED_EVENTS, time.perf_counter() + _TRACED_SECONDS]

    def spend() -> bool:
        """Whether to go on after one more event: within the budget of events and seconds."""
        budget[0] -= 1
        return budget[0] >= 0 and (budget[0] % 1000 != 0 or time.perf_counter() < budget[1])

    def record(frame: types.FrameType, offset: int) -> None:
        for slot, (kind, name) in enumerate(sites[frame.f_code][offset]):
            if kind is not None:
                held = _operand_value(frame, kind, name)
                if held is not _MISSING:
                    values.setdefault((frame.f_code, offset, slot), set()).add(_frozen(held))

    monitoring = getattr(sys, "monitoring", None)
    tool = next((t for t in range(1, 6) if monitoring.get_tool(t) is None), None) if monitoring else None
    try:
        if monitoring is not None and tool is not None:
            _monitored(monitoring, tool, function, argument, sites, spend, record)
        elif monitoring is None:
            _opcode_traced(function, argument, sites, spend, record)
    except Exception:  # an input the function rejects still showed what it compared
        pass


def _monitored(
    monitoring: Any, tool: int, function: Callable, argument: Any, sites: dict, spend: Callable, record: Callable
) -> None:
    monitoring.use_tool_id(tool, "perflab-comparisons")
    events = monitoring.events

    def instruction(code: types.CodeType, offset: int) -> Any:
        if offset not in sites[code]:
            return monitoring.DISABLE  # this instruction is no comparison: never again
        if spend():
            record(sys._getframe(1), offset)  # the frame of the code that compares
        else:
            for each in sites:
                monitoring.set_local_events(tool, each, 0)
        return None

    monitoring.register_callback(tool, events.INSTRUCTION, instruction)
    try:
        for code in sites:
            monitoring.set_local_events(tool, code, events.INSTRUCTION)
        function(argument)
    finally:
        for code in sites:
            monitoring.set_local_events(tool, code, 0)
        monitoring.register_callback(tool, events.INSTRUCTION, None)
        monitoring.free_tool_id(tool)


def _opcode_traced(function: Callable, argument: Any, sites: dict, spend: Callable, record: Callable) -> None:
    def opcode(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event != "opcode":
            return opcode
        if not spend():  # every opcode costs a call here
            sys.settrace(None)
            frame.f_trace_opcodes = False
        elif frame.f_lasti in sites[frame.f_code]:
            record(frame, frame.f_lasti)
        return opcode

    def call(frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code not in sites:
            return None
        frame.f_trace_lines = False
        frame.f_trace_opcodes = True
        return opcode

    previous = sys.gettrace()
    sys.settrace(call)
    try:
        function(argument)
    finally:
        sys.settrace(previous)


_MISSING = object()


def _operand_value(frame: types.FrameType, kind: str, name: Any) -> Any:
    if kind == "LOAD_CONST":
        return name
    if kind in ("LOAD_GLOBAL", "LOAD_NAME"):
        return frame.f_globals.get(name, _MISSING)
    return frame.f_locals.get(name, _MISSING)  # a local, a cell or a free variable


def _frozen(value: Any) -> Any:
    """``value`` as a set member: a small container by its scalar items, others as they are."""
    if isinstance(value, (tuple, list, set, frozenset, dict)) and len(value) <= _CONTAINER:
        return frozenset(item for item in value if _hashable_scalar(item))
    return value if _hashable_scalar(value) else None


def _hashable_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, str, frozenset)) and not isinstance(value, bool)


def _scalars(value: Any, depth: int = 0) -> set:
    """The numbers and texts inside an input (its items, their fields), a few levels down."""
    if _hashable_scalar(value):
        return {value}
    found: set = set()
    if depth < 3 and isinstance(value, (list, tuple, set, frozenset, dict)):
        for item in list(value.items() if isinstance(value, dict) else value)[:10_000]:
            found |= _scalars(item, depth + 1)
    items = getattr(value, "items", None)  # a one-shot iterator of items
    if depth < 3 and isinstance(items, list):
        found |= _scalars(items, depth + 1)
    return found


def _operand_sites(code: types.CodeType) -> dict[int, list[tuple[str | None, Any]]]:
    """offset of each comparison or ``in`` test -> its two operands as (load, name), where an
    operand is pushed by a plain load just before it ((None, None) where it is computed)."""
    instructions = list(dis.get_instructions(code))
    sites: dict[int, list[tuple[str | None, Any]]] = {}
    for index, instruction in enumerate(instructions):
        if instruction.opname not in _TESTS:
            continue
        before = instructions[max(0, index - 2) : index]
        operands: list[tuple[str | None, Any]] = []
        for earlier in before:
            if earlier.opname.startswith("LOAD_FAST") and isinstance(earlier.argval, tuple):  # 3.13: two locals
                operands += [("LOAD_FAST", name) for name in earlier.argval]
            elif _load(earlier.opname):
                operands.append((_load(earlier.opname), earlier.argval))
            else:
                operands = []
        operands = operands[-2:]
        if operands:
            sites[instruction.offset] = [(None, None)] * (2 - len(operands)) + operands
    return sites


def _load(opname: str) -> str | None:
    """The kind of plain load an instruction is (its 3.12+ variants by their 3.11 names), or None."""
    if opname.startswith("LOAD_FAST") or opname in ("LOAD_DEREF", "LOAD_CLOSURE"):
        return "LOAD_FAST"  # read from the frame's locals
    if opname.startswith("LOAD_CONST") or opname == "LOAD_SMALL_INT":
        return "LOAD_CONST"
    if opname in ("LOAD_GLOBAL", "LOAD_NAME"):
        return opname
    return None


def _compared_operands(code: types.CodeType, namespace: dict, found: _Found) -> None:
    """The literals and module-level names that the code's comparisons and ``in`` tests read."""
    for operands in _operand_sites(code).values():
        for slot, (kind, name) in enumerate(operands):
            value = name if kind == "LOAD_CONST" else namespace.get(name, _MISSING)
            if kind not in ("LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME") or value is _MISSING or callable(value):
                continue
            found.add(value, COMPARED)
            if slot == 1 and isinstance(value, str) and len(value) <= _CONTAINER:
                found.add(set(value), COMPARED)  # `c in ",;"`: its characters (and `x < "m"`: that one)


def _defaults(function: types.FunctionType | None) -> list[Any]:
    """A function's default arguments and closure cells: a window's length passed as ``n=7``, a
    helper module an enclosing function imported."""
    if function is None:
        return []
    values = [*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values()]
    for cell in function.__closure__ or ():
        with contextlib.suppress(ValueError):  # a cell not filled yet
            values.append(cell.cell_contents)
    return values


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names that ``code`` and the code nested in it read."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names(constant)
    return names


def _callees(value: Any, names: set[str]) -> list[types.FunctionType]:
    """The pure-Python functions that a global name of the code gives: itself, or (a module's or a
    class's) the attributes the code names; none of the standard library's, which names too many."""
    if isinstance(value, types.FunctionType):
        found = [value]
    elif isinstance(value, (types.ModuleType, type)):
        found = [
            attribute
            for name in sorted(names)
            for attribute in [getattr(value, name, None)]
            if isinstance(attribute, types.FunctionType)
        ]
    else:
        return []
    return [function for function in found if not _standard(function)]


def _standard(function: types.FunctionType) -> bool:
    """Whether ``function`` is the standard library's, perflab's or an installed library's (whose
    constants are everyone's), not the code under test's."""
    module = (function.__module__ or "").split(".")[0]
    installed = any(folder in function.__code__.co_filename for folder in ("site-packages", "dist-packages"))
    return installed or module in getattr(sys, "stdlib_module_names", ()) or module == "perflab"


def around(value: Any, constants: Constants) -> list[Any]:
    """Inputs like ``value`` built around ``constants`` (empty when nothing fits), the most telling
    constant's first: at ``value`` itself and, in a list or tuple, at its first and last items (or
    a field of them) and two items that far apart. A sorted sequence of numbers stays sorted
    (timestamps, a strategy's ``.map(sorted)``): only its order would change otherwise."""
    per_constant = [
        _in_turn([_pairs(value, constant) if type(value) in (list, tuple) and value else [], *ways])
        for constant, ways in _by_constant(value, constants)
    ]
    made = _in_turn([_joined_alike(value), *per_constant])  # each constant's likeliest input first, then the next
    if type(value) in (list, tuple) and _sorted_numbers(value):
        made = [type(value)(sorted(items)) if _numbers(items) else items for items in made]
    distinct: dict[str, Any] = {}
    for each in made:  # a pair at the constant's distance can be the constant in place of an item
        distinct.setdefault(repr(each), each)
    return list(distinct.values())


def _by_constant(value: Any, constants: Constants) -> list[tuple[Any, list[list[Any]]]]:
    """(the constant, ``value`` with it in place of itself or of its first and last items (or
    their fields), and a sequence cut or grown to that many items), for each constant in order."""
    if type(value) in (list, tuple) and value:
        places = [(value[index], _placed(value, index)) for index in sorted({0, len(value) - 1})]
    else:
        places = [(value, lambda item: item)]
    made = []
    for constant in [*constants.integers, *constants.floats, *constants.texts]:
        replacements = [put(new) for item, put in places for new in _around_one(item, constant)]
        made.append((constant, [replacements, _sized(value, constant)]))
    return made


_NONE_LEFT = object()


def _in_turn(lists: list[list[Any]]) -> list[Any]:
    """The first item of each list, then the second of each, and so on."""
    return [
        item for turn in itertools.zip_longest(*lists, fillvalue=_NONE_LEFT) for item in turn if item is not _NONE_LEFT
    ]


def _placed(value: list | tuple, index: int) -> Callable[[Any], Any]:
    def place(item: Any) -> Any:
        items = list(value)
        items[index] = item
        return type(value)(items)

    return place


def _sized(value: Any, length: Any) -> list[Any]:
    """A non-empty sequence with its items repeated or cut to ``length`` items, and one fewer and
    one more: a fast path taken below a size the code names, a window as long as the input."""
    if type(value) not in (list, tuple) or not value or type(length) is not int or not 2 <= length <= _LONGEST_SIZED:
        return []
    return [
        type(value)(value[i % len(value)] for i in range(size))
        for size in (length, length - 1, length + 1)
        if size != len(value)
    ]


def _numbers(value: Any) -> bool:
    return type(value) in (list, tuple) and all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in value
    )


def _sorted_numbers(value: list | tuple) -> bool:
    return len(value) > 1 and _numbers(value) and all(a <= b for a, b in zip(value, value[1:]))


def _around_one(value: Any, constant: Any) -> list[Any]:
    """``value`` made ``constant`` (or its neighbours): a number, a number in text, text put in
    text, or one field of a record (a tuple or a dict of such values)."""
    if isinstance(value, bool):
        return []
    number = isinstance(constant, (int, float))
    if isinstance(value, int) and type(constant) is int:
        return [constant, constant - 1, constant + 1]
    if isinstance(value, float) and number:
        return [float(constant), math.nextafter(float(constant), -math.inf), math.nextafter(float(constant), math.inf)]
    if isinstance(value, str):
        if isinstance(constant, str):
            middle = len(value) // 2
            return [value[:middle] + constant + value[middle:]]
        digits = _NUMBER.search(value)
        if digits and type(constant) is int and constant >= 0:  # in place of the text's first number
            return [value[: digits.start()] + str(constant + delta) + value[digits.end() :] for delta in (0, -1, 1)]
        return []
    if type(value) is tuple or type(value) is dict:
        made = []
        for key in range(len(value)) if type(value) is tuple else list(value):
            for item in _around_one(value[key], constant):
                made.append(_with_field(value, key, item))
        return made
    return []


def _with_field(record: Any, key: Any, item: Any) -> Any:
    if type(record) is dict:
        return {**record, key: item}
    return (*record[:key], item, *record[key + 1 :])


def _pairs(value: list | tuple, distance: Any) -> list[Any]:
    """``value`` with its last item (and its second) ``distance`` away from its first, exactly and
    one more: a window's length, a threshold between neighbours, two keys a formula maps to one
    number. Items that are records get it in each numeric field."""
    if not isinstance(distance, (int, float)) or not distance:
        return []
    first = value[0]
    made = []
    for partner in _partners(first, distance):
        made.append(type(value)([*value[:-1], partner] if len(value) > 1 else [first, partner]))
        if len(value) > 2:
            made.append(type(value)([first, partner, *value[2:]]))
    return made


def _partners(first: Any, distance: Any) -> list[Any]:
    if isinstance(first, bool):
        return []
    if isinstance(first, (int, float)):
        if isinstance(first, int) and type(distance) is not int:
            return []
        return [first + distance, first + distance + 1]
    if type(first) is tuple or type(first) is dict:
        made = []
        for key in range(len(first)) if type(first) is tuple else list(first):
            field_value = first[key]
            if isinstance(field_value, (int, float)) and not isinstance(field_value, bool):
                made += [_with_field(first, key, partner) for partner in _partners(field_value, distance)]
        return made + _carried(first, distance)
    return []


def _joined_alike(value: Any) -> list[Any]:
    """A sequence of records with, after its first item, a partner whose two neighbouring fields
    (non-negative integers, or texts) written one after the other give the same text, split one
    character later and one earlier: ``(1, 23)`` and ``(12, 3)``, ``("ab", "c")`` and ``("a", "bc")``,
    one key where a key is joined without a separator."""
    if type(value) not in (list, tuple) or not value or type(value[0]) is not tuple:
        return []
    first = value[0]
    made = []
    for key in range(len(first) - 1):
        left, right = first[key], first[key + 1]
        if type(left) is type(right) is str or (type(left) is type(right) is int and left >= 0 and right >= 0):
            text = f"{left}{right}"
            for cut in (len(str(left)) + 1, len(str(left)) - 1):
                if 0 < cut < len(text) and (type(left) is str or text[cut] != "0" or cut == len(text) - 1):
                    parts = (text[:cut], text[cut:]) if type(left) is str else (int(text[:cut]), int(text[cut:]))
                    partner = (*first[:key], *parts, *first[key + 2 :])
                    made.append(type(value)([first, partner, *value[2:]] if len(value) > 1 else [first, partner]))
    return made


def _carried(record: tuple | dict, distance: Any) -> list[Any]:
    """``record`` with one integer field one more (and one less) and another ``distance`` less
    (more): the partner that a packing ``a * distance + b`` maps to the same number as ``record``."""
    keys = [
        key
        for key in (range(len(record)) if type(record) is tuple else list(record))
        if type(record[key]) is int and type(distance) is int
    ]
    made = []
    for high in keys:
        for low in keys:
            if high != low:
                for step in (1, -1):
                    moved = _with_field(record, high, record[high] + step)
                    made.append(_with_field(moved, low, record[low] - step * distance))
    return made


def _kept(found: list[tuple[int, Any]]) -> list[Any]:
    """At most _KEPT values, the most telling way found first; within one way, the smallest in
    magnitude and the largest alternately (a window and a modulus), in a fixed order."""
    kept: list[Any] = []
    for tier in (COMPARED, NAMED, LITERAL, TRIVIAL):
        ordered = sorted((value for each, value in found if each == tier), key=_magnitude)
        while ordered and len(kept) < _KEPT:
            kept.append(ordered.pop(0))
            if ordered and len(kept) < _KEPT:
                kept.append(ordered.pop())
    return kept


def _magnitude(value: Any) -> tuple:
    return (len(value), value) if isinstance(value, str) else (abs(value), value)


def _function_of(function: Any) -> types.FunctionType | None:
    for _ in range(4):  # a partial of a bound method of ..., unwrapped
        if isinstance(function, types.FunctionType):
            return function
        inner = getattr(function, "__wrapped__", None) or getattr(function, "__func__", None)
        inner = inner or getattr(function, "func", None)
        if inner is None and not isinstance(function, type):
            call = vars(type(function)).get("__call__")  # a class's own __call__, written in Python
            inner = call if isinstance(call, types.FunctionType) else None
        if inner is None:
            return None
        function = inner
    return None
