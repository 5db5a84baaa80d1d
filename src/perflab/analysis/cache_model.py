"""Simulated cache and branch counters as numbers: what each reported counter adds up from
callgrind's events, and the cycle estimate's cost model (docs/metrics.md, "cache").

Measuring them (valgrind) is perflab.metrics.cache; this module only turns its event counts into
the counters every output shows.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

# The cost model of the cycle estimate: one cycle per instruction, plus a penalty per miss and per
# mispredicted branch. These are KCachegrind's default weights ("CEst = Ir + 10 Bm + 10 L1m + 100
# LLm"), in line with the cachegrind manual's "an L1 miss will typically cost around 10 cycles, an
# LL miss can cost as much as 200 cycles, and a mispredicted branch costs in the region of 10 to 30
# cycles". A miss in both L1 and LL pays both penalties. An estimate to compare two versions of the
# same code with, not a prediction of a real CPU's cycles (which overlap misses, and have more levels).
L1_MISS_CYCLES = 10
LL_MISS_CYCLES = 100
MISPREDICT_CYCLES = 10

L1_MISSES = ("I1mr", "D1mr", "D1mw")
LL_MISSES = ("ILmr", "DLmr", "DLmw")
MISPREDICTS = ("Bcm", "Bim")

# Each counter shown, in order: its label and the callgrind events it sums.
COUNTERS: dict[str, tuple[str, ...]] = {
    "instructions": ("Ir",),
    "I1 misses": ("I1mr",),
    "LL instruction misses": ("ILmr",),
    "D1 read misses": ("D1mr",),
    "D1 write misses": ("D1mw",),
    "LL data read misses": ("DLmr",),
    "LL data write misses": ("DLmw",),
    "branches": ("Bc", "Bi"),
    "branch mispredictions": MISPREDICTS,
}
CYCLES = "cycles (estimate)"
NAMES = (*COUNTERS, CYCLES)


def cycle_estimate(events: Mapping[str, float]) -> float:
    """Cycles by the cost model above, from callgrind's event counts."""
    return (
        events.get("Ir", 0.0)
        + L1_MISS_CYCLES * sum(events.get(e, 0.0) for e in L1_MISSES)
        + LL_MISS_CYCLES * sum(events.get(e, 0.0) for e in LL_MISSES)
        + MISPREDICT_CYCLES * sum(events.get(e, 0.0) for e in MISPREDICTS)
    )


def counters(events: Mapping[str, float]) -> dict[str, float]:
    """Every counter of ``NAMES`` from one set of callgrind event counts."""
    named = {name: sum(events.get(e, 0.0) for e in parts) for name, parts in COUNTERS.items()}
    named[CYCLES] = cycle_estimate(events)
    return named


def misses(events: Mapping[str, float]) -> float:
    """Cache misses of every level and kind (how functions are ranked by what they miss)."""
    return sum(events.get(e, 0.0) for e in (*L1_MISSES, *LL_MISSES))


def summarize(processes: Sequence[Mapping[str, float]]) -> dict[str, tuple[float, float]]:
    """Counter -> (median over the processes, spread = (max - min) / |median|; 0 when the median is 0).
    (A median can be slightly negative: a miss count of the 0-call region above the N-call one's.)"""
    rows = [counters(events) for events in processes]
    summary = {}
    for name in NAMES:
        values = [row[name] for row in rows]
        median = statistics.median(values)
        summary[name] = (median, (max(values) - min(values)) / abs(median) if median else 0.0)
    return summary
