"""Jobs that need no quiet CPU (equivalence checks, fuzzing) run side by side, one per CPU.

Timing needs the machine quiet and runs alone; these jobs run before it, each in its own worker
process, so running as many at once as there are CPUs takes a fraction of the wall time and
changes no result: each job is the same process with the same input either way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def cpu_count() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def side_by_side(calls: Sequence[Callable[[], T]]) -> list[T]:
    """The results of ``calls`` in order, at most one running per CPU at a time."""
    if len(calls) <= 1 or cpu_count() == 1:
        return [call() for call in calls]
    with ThreadPoolExecutor(max_workers=min(cpu_count(), len(calls))) as pool:
        return list(pool.map(lambda call: call(), calls))
