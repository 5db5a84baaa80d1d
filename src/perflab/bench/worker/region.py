"""The measured region: the timed loop every timing, profiling and counting job calls, how many
calls one value holds (calibration), and the markers a counting tool sees around it.

Profilers trim stacks to what runs below ``measured_region``, and recognise it by its name and by
this file (perflab.profile.processors); callgrind dumps its counts at each ``region_marker``
(perflab.metrics.instructions). Moving either function means updating those. Standard library only.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Generator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

# Calibration stops doubling once one batch of calls lasts this fraction of the target.
_CALIBRATION_FRACTION = 0.25
_CALIBRATION_BATCHES = 4
_MAX_LOOPS = 10**9
# Seconds: a process's first call this long is taken as one call a value without a second call
# to confirm it (that call would cost as much as a value; the parent demotes the round to
# calibration if its values say otherwise).
_LONG_FIRST_CALL = 0.5
# Thread CPU seconds of the last measured region (``last_cpu_seconds``): kept beside the wall time,
# the load-immune reference of single-threaded code (time.thread_time does not advance while the
# thread is descheduled). A module value rather than a second return value, so that every caller of
# the region (profiling, counting) keeps its one number.
_last_cpu = 0.0


def measured_region(operation: Callable[[Any], Any], argument: Any, loops: int) -> float:
    """Call ``operation(argument)`` ``loops`` times and return the elapsed seconds.

    Profilers trim stacks to what runs below this function, so its name is part of the protocol.
    An operation with a ``times_itself(argument, loops)`` method (a pyperf script's
    ``bench_time_func``, perflab.bench.pyperf_script) measures the calls itself, and one with a
    ``loops_run(argument)`` method says how many it really ran (``last_cpu_seconds`` is scaled by it).
    """
    global _last_cpu
    cpu = time.thread_time()
    times_itself = getattr(operation, "times_itself", None)
    if times_itself is not None:
        elapsed = times_itself(argument, loops)
        # Its CPU time scaled as it scales its own time: a pyperf time function runs whole calls.
        loops_run = getattr(operation, "loops_run", None)
        ran = (loops_run(argument) if loops_run is not None else loops) or loops
        _last_cpu = (time.thread_time() - cpu) * loops / ran
        return elapsed
    timer = time.perf_counter
    start = timer()
    for _ in itertools.repeat(None, loops):
        operation(argument)
    elapsed = timer() - start
    _last_cpu = time.thread_time() - cpu
    return elapsed


def measured_region_fresh(operation: Callable[[Any], Any], arguments: list[Any]) -> float:
    """Call ``operation`` once on each of ``arguments`` (copies made before, outside the timed
    region) and return the elapsed seconds: the timed loop of a benchmark declaring
    ``mutates_input=True``, where no call may see what an earlier one did to its input."""
    global _last_cpu
    cpu = time.thread_time()
    timer = time.perf_counter
    start = timer()
    for argument in arguments:
        operation(argument)
    elapsed = timer() - start
    _last_cpu = time.thread_time() - cpu
    return elapsed


def last_cpu_seconds() -> float:
    """Thread CPU seconds of the last ``measured_region`` or ``measured_region_fresh`` call (the
    thread's own CPU time: not another thread's work, nor time spent waiting or descheduled)."""
    return _last_cpu


def calibrate(operation: Callable[[Any], Any], argument: Any, value_time: float) -> int:
    """The number of calls that makes one value last about ``value_time`` seconds, at most ``max_loops``."""
    limit = max_loops(operation, argument)
    if limit == 1:
        return 1  # nothing to size (and a call may be a whole process: asv's timeraw_)
    return calibrate_region(lambda loops: measured_region(operation, argument, loops), value_time, limit)


def max_loops(operation: Callable[[Any], Any], argument: Any) -> int:
    """The most calls one value may make: the operation's ``max_loops(argument)`` when it has one
    (an asv benchmark's ``number``: calls that may share what its setup built), else no limit."""
    limit = getattr(operation, "max_loops", None)
    return (limit(argument) if limit is not None else None) or _MAX_LOOPS


def calibrate_region(
    region: Callable[[int], float], value_time: float, max_loops: int, first: float | None = None
) -> int:
    """The loop count (at most ``max_loops``) that makes ``region(loops)`` last about ``value_time``.
    ``first``: the seconds of one call timed already (the process's first call), taken for the
    rule's first ``region(1)``; one of _LONG_FIRST_CALL or more is one call a value at once."""
    if first is not None and first >= max(_LONG_FIRST_CALL, value_time):
        return 1
    steps = calibration_steps(value_time, max_loops)
    loops = next(steps)
    try:
        if first is not None:
            loops = steps.send(first)
        while True:
            loops = steps.send(region(loops))
    except StopIteration as done:
        return done.value


def calibration_steps(value_time: float, max_loops: int = _MAX_LOOPS) -> Generator[int, float, int]:
    """The calibration rule as a generator: it yields a loop count to time, is sent the seconds
    those calls took, and returns the calibrated loop count. (A generator, so that code that
    cannot call a timing function directly, e.g. a coroutine inside a running event loop in
    perflab.pytest_plugin, follows the same rule.)"""
    loops = 1
    elapsed = yield loops
    if elapsed >= value_time:
        # One call is a value only if a second one says so too: the first may be cold, or lose the
        # CPU on a loaded machine (seen: a 0.2 ms call timed at 5 ms made every value one call).
        elapsed = min(elapsed, (yield loops))
        if elapsed >= value_time:
            return 1  # more batches would only spend the time budget
    while elapsed < value_time * _CALIBRATION_FRACTION and loops < max_loops:
        loops = min(max_loops, loops * (2 if elapsed > 0 else 10))
        elapsed = yield loops
    # The fastest of a few batches: one batch that lost the CPU half-way would cut the loop count
    # (seen: 6 loops instead of ~100 under load), and values of very different lengths on two
    # sides are not hit alike by other processes' time slices.
    for _ in range(_CALIBRATION_BATCHES):
        elapsed = min(elapsed, (yield loops))
    return max(1, min(max_loops, round(loops * value_time / max(elapsed, 1e-9))))


def region_marker() -> None:
    """Marks the start and end of a counted region for a tool watching this process.

    A call that costs nothing and that benchmarks never make, so that ``valgrind --tool=callgrind
    --dump-before=_PyEval_GetSwitchInterval`` (the C function behind it, exported even by stripped
    interpreters) dumps its counts exactly at region boundaries (perflab.metrics.instructions).
    """
    sys.getswitchinterval()
