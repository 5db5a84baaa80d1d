"""The machine's own speed, read beside every value: the thread CPU seconds of one fixed piece of
pure-Python work. perflab.results.machine_speed compares them across the run's processes, and
says why no clock of the guest sees such changes. Standard library only.
"""

from __future__ import annotations

import time

# Iterations of the probe's loop: about 0.2 ms on this project's VM, a few percent of a 5 ms value.
ITERATIONS = 5_000


def probe() -> float:
    """Thread CPU seconds of the fixed work (the same on every side and in every process)."""
    started = time.thread_time()
    total = 0
    for index in range(ITERATIONS):
        total += index % 7
    return time.thread_time() - started
