"""What a timing worker checks beside its values, always outside the timed region.

- **first call**: the first call on the input, on a fresh copy of it, after one untimed call on
  a variant of it (one item changed) that pays what the process does once: a memo cache or a
  warmed lookup answers it at full cost and the steady state cheaply, so a steady state far
  faster than the first call says the speed comes from repeating one input.
- **first-call overhead**: the same timing around a call that does nothing, the fastest of a
  few: what one timed call costs by itself, so that a first call too close to it (tens of
  nanoseconds) is said to be unresolvable instead of judged.
- **floor**: the harness's own loop around the cheapest call there is (``type(argument)``), with
  the loop the values use: the part of a time per call that is perflab's, not the contender's.
- **after the values**: whether the input still has the digest it had before the first call (a
  contender that changes its input times every later call on another input), and whether the
  contender's output, called once more on the state the timed calls left, is still the
  reference's (a contender that goes wrong after many calls is caught where it was measured).

Standard library only: this module runs in worker processes.
"""

from __future__ import annotations

import contextlib
import pickle
import time
from collections.abc import Callable

from perflab.bench.worker import integrity
from perflab.bench.worker.copies import fresh_copy, variant

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.protocol import IntegrityChecks

FRESH_MEMORY_BUDGET = 256 * 2**20  # bytes of input copies one value of a mutates_input benchmark may hold
_OBJECT_OVERHEAD = 4  # in-memory size of a copy per byte of its pickle (lists of floats: ~3.5)
_FLOOR_CALLS = 10_000  # at least this many empty calls per floor measurement
_FLOOR_REPEATS = 3  # the fastest of these many is the floor
_OVERHEAD_REPEATS = 5  # the fastest of these many single timed empty calls is the first-call overhead


def first_call(operation: Callable[[Any], Any], argument: Any, other_input: Callable[[], Any] | None = None) -> float:
    """Seconds of one call of ``operation`` on ``argument``, the first on any input equal to it.

    One call on a variant of ``argument`` (another input of its type and size, one item changed:
    perflab.bench.worker.copies.variant) comes first, untimed: what a process does once, whatever the
    input (a lazy import, building an encoder or a table, NumPy's first call), is then not taken
    for repeat-only speed, while a cache keyed by the input's value or identity still misses.
    An input with no variant (an empty dict, None) is preceded by ``other_input()`` instead
    (another declared case's input); without either, the first call of the process is timed."""
    warm_up = variant(fresh_copy(argument))  # a tuple's variant shares its other items: not the argument's
    if warm_up is None and other_input is not None:
        with contextlib.suppress(Exception):  # a case that cannot be built warms nothing
            warm_up = other_input()
    if warm_up is not None:
        with contextlib.suppress(Exception):  # the variant may lie outside the domain: the set-up ran anyway
            operation(warm_up)
    return _timed_call(operation, argument)


def first_call_overhead(argument: Any) -> float:
    """Seconds ``first_call`` measures around a call that does nothing (``type(argument)``), the
    fastest of _OVERHEAD_REPEATS: the timer's own cost in one timed call, which a first call of a
    few tens of nanoseconds cannot be told apart from (perflab.measure.timing_verdicts)."""
    return min(_timed_call(type, argument) for _ in range(_OVERHEAD_REPEATS))


def _timed_call(operation: Callable[[Any], Any], argument: Any) -> float:
    """Seconds of one call: the one timing that the first call and its overhead share."""
    timer = time.perf_counter
    start = timer()
    operation(argument)
    return timer() - start


def fresh_loops_limit(argument: Any) -> int:
    """How many copies of ``argument`` fit FRESH_MEMORY_BUDGET: the most calls one value may make."""
    try:
        size = len(pickle.dumps(argument, protocol=4)) * _OBJECT_OVERHEAD
    except Exception:
        size = 1024
    return max(1, FRESH_MEMORY_BUDGET // max(size, 1))


def floor(time_calls: Callable[[Callable[[Any], Any], int], float], loops: int) -> float:
    """Seconds per call of the harness's loop around ``type(argument)``: ``time_calls(function, n)``
    times n calls of ``function`` with the loop the values use."""
    calls = max(loops, _FLOOR_CALLS)
    return min(time_calls(type, calls) for _ in range(_FLOOR_REPEATS)) / calls


def after_values(
    benchmark: Any,
    reference_name: str | None,
    operation: Callable[[Any], Any],
    argument: Any,
    digest_before: str | None,
    copy_input: Callable[[], Any],
    check_output: bool = True,
) -> IntegrityChecks:
    """The checks after the last value: {"input_changed": how, "output_wrong": how} (None: fine).
    ``check_output``: also call the contender (and the reference) once more to compare outputs,
    where the benchmark compares them (a pyperf script's are not: no more calls)."""
    input_changed = None
    if digest_before is not None and integrity.digest(argument) != digest_before:
        input_changed = (
            "its input changed during the timed calls (the pickle digest after the values "
            "differs from the one before the first call): every call after the first ran on "
            "a changed input; declare Benchmark(..., mutates_input=True) if that is the operation"
        )
    if input_changed or reference_name is None or not check_output or not benchmark.comparator.compares:
        return {"input_changed": input_changed, "output_wrong": None}
    reference_input = copy_input()
    try:
        last = operation(copy_input() if benchmark.mutates_input else argument)
    except Exception as error:
        return {
            "input_changed": None,
            "output_wrong": f"after its timed calls, the contender raised {type(error).__name__}: {error}",
        }
    try:
        expected = benchmark.contenders[reference_name].build()(reference_input)
        outcome = benchmark.comparator.check(expected, last)
    except Exception as error:
        return {
            "input_changed": None,
            "output_wrong": None,
            "unchecked": f"the reference raised {type(error).__name__}: {error}",
        }
    wrong = (
        None
        if outcome.equivalent
        else (f"after its timed calls, its output differs from the reference's: {outcome.difference}")
    )
    return {"input_changed": None, "output_wrong": wrong}
