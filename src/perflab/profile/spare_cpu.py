"""Whether the machine has a CPU to spare for the sampler beside the target's: the fast rate is free then.

py-spy --nonblocking on another CPU than the pinned target never stops it, and at 1 kHz its stops
cost +0.84% [+0.31, +1.36] on a quiet machine (no more than at 200 Hz); but with other CPU-bound
work running, py-spy's own CPU use pushes that work onto the target's CPU: +9.0% [+5.6, +12.6] at
1 kHz, -0.2% [-1.0, +0.7] at 200 Hz (benchmarks/sampler_pause.py --window 5, quiet and --busy).
So the fast rate is chosen only when the CPUs this process may use are idle enough for the target
and the sampler both.
"""

from __future__ import annotations

import os
import time

# Idle CPUs needed: one for the target, most of one for py-spy (a daemon's odd wake-up is no reason
# to sample slowly; one CPU-bound process on two CPUs leaves ~1.0).
NEEDED_IDLE_CPUS = 1.75
LOOK_SECONDS = 0.2  # /proc/stat counts in 10 ms ticks: 20 per CPU over this


def has_spare_cpu(seconds: float = LOOK_SECONDS) -> bool:
    """True when the allowed CPUs were idle enough over the next ``seconds`` for a target and a
    sampler; False where that cannot be read (not Linux) or on fewer than two CPUs."""
    idle = idle_cpus(seconds)
    return idle is not None and idle >= NEEDED_IDLE_CPUS


def idle_cpus(seconds: float = LOOK_SECONDS) -> float | None:
    """How many CPUs' worth of time the CPUs this process may run on spent idle over the next
    ``seconds`` (time stolen by the hypervisor counts as busy); None where /proc/stat is not there."""
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    before = _cpu_times(allowed)
    if not before:
        return None
    time.sleep(seconds)
    after = _cpu_times(allowed)
    idle = total = 0
    for cpu, (idle_after, total_after) in after.items():
        if cpu in before:
            idle += idle_after - before[cpu][0]
            total += total_after - before[cpu][1]
    return len(after) * idle / total if total > 0 else None


def _cpu_times(allowed: set[int]) -> dict[int, tuple[int, int]]:
    """{cpu: (idle ticks, all ticks)} of the ``allowed`` CPUs from /proc/stat; {} where unreadable."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            lines = stat.readlines()
    except OSError:
        return {}
    times = {}
    for line in lines:
        name, *fields = line.split()
        if not name.startswith("cpu") or name == "cpu" or len(fields) < 8:
            continue
        cpu = int(name[3:])
        if cpu in allowed:
            # user nice system idle iowait irq softirq steal (guest time is already in user)
            ticks = [int(value) for value in fields[:8]]
            times[cpu] = (ticks[3] + ticks[4], sum(ticks))
    return times
