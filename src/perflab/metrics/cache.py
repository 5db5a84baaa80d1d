"""Cache and branch behaviour per call, simulated by valgrind: on any machine, virtual or not.

The simulation is cachegrind's (first-level instruction and data caches, the last-level cache,
a branch predictor, their sizes read from the host CPU), run inside callgrind
(``--cache-sim=yes --branch-sim=yes``): callgrind alone can dump its counts at the region markers,
so the counted calls are exactly those of ``--metric instructions`` (perflab.metrics.instructions:
warm-up, then 0 calls and N calls between markers, per call = (N-call region - 0-call region) / N,
address randomization off, a pinned environment). Each cell is counted in 3 separate processes;
the counters and the cycle estimate's cost model are perflab.analysis.cache_model. The same dumps
give each function's own counts, hence which functions miss, in a table and in the tooltips of a
profile of the same cell (perflab.profile.simulated_cache).

Where ``perf stat`` has hardware counters (not on most virtual machines), they are read too
(perflab.metrics.counters) and shown in the same table.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from perflab.analysis.cache_model import cycle_estimate, misses, summarize
from perflab.metrics import callgrind_format
from perflab.metrics.count_jobs import Target, loops_for, require
from perflab.metrics.instructions import NATIVE_SECONDS, REPEATS, region_dumps

# Names written in full in every dump: compressed, a name is spelled out once per run, in
# whichever dump first needs it, and later dumps have only its number.
SIMULATION = ("--cache-sim=yes", "--branch-sim=yes", "--compress-strings=no")
TOP_FUNCTIONS = 10  # functions in the table of a cell, those with the most cache misses per call
# Functions kept per cell, those with the most estimated cycles: what a profile's frames can show
# (the hot C functions of the operation), at a bounded size in results files.
KEPT_FUNCTIONS = 100


@dataclass
class CacheReading:
    """Simulated events per call of one (case, contender), one mapping per valgrind process."""

    case: str
    contender: str
    loops: int
    per_call: list[dict[str, float]] = field(default_factory=list)  # callgrind event -> count per call
    functions: dict[str, dict[str, float]] = field(default_factory=dict)  # function -> event -> own count per call

    @property
    def top_functions(self) -> dict[str, dict[str, float]]:
        """The functions of the table: those with the most cache misses per call (none without a miss)."""
        ranked = sorted(self.functions.items(), key=lambda item: misses(item[1]), reverse=True)
        return {name: events for name, events in ranked[:TOP_FUNCTIONS] if misses(events) > 0}

    caches: list[str] = field(default_factory=list)  # the simulated caches, as callgrind describes them
    hardware: dict[str, float] | None = None  # perf stat's counters per call, where the machine has them
    error: str | None = None

    @property
    def counters(self) -> dict[str, tuple[float, float]]:
        """Counter -> (median per call over the processes, spread); empty when none counted."""
        return summarize(self.per_call) if self.per_call else {}


def measure(
    targets: list[Target], repeats: int = REPEATS, timeout: float = 600.0, loops: int | None = None
) -> list[CacheReading]:
    """Simulate every target ``repeats`` times in separate processes, two at a time (counts do not
    depend on the machine's load); ``loops``: calls per process (default: ~20 ms of native calls)."""
    valgrind = require("valgrind", "valgrind")
    readings = [CacheReading(t.case, t.contender, loops or loops_for(t.time_per_call, NATIVE_SECONDS)) for t in targets]
    jobs = [(reading, target) for reading, target in zip(readings, targets) for _ in range(repeats)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda job: simulate_once(valgrind, job[1], job[0].loops, timeout), jobs))
    for (reading, _), (simulated, error) in zip(jobs, outcomes):
        if simulated is None:
            reading.error = reading.error or error
            continue
        events, functions, caches = simulated
        reading.per_call.append(events)
        reading.functions = reading.functions or functions  # the same code in every process
        reading.caches = caches
    return readings


Simulated = tuple[dict[str, float], dict[str, dict[str, float]], list[str]]


def simulate_once(
    valgrind: str, target: Target, loops: int, timeout: float = 600.0
) -> tuple[Simulated | None, str | None]:
    """One run: ((events per call, the kept functions' events per call, the caches), None), or
    (None, why it failed)."""
    regions, error = region_dumps(valgrind, target, loops, timeout, SIMULATION)
    if regions is None:
        return None, error
    empty, full = (callgrind_format.parse(text) for text in regions)
    events = {e: (full.totals[e] - empty.totals.get(e, 0)) / loops for e in full.events}
    functions = {
        name: {e: (counts.get(e, 0) - empty.functions.get(name, {}).get(e, 0)) / loops for e in full.events}
        for name, counts in full.functions.items()
    }
    kept = sorted(functions, key=lambda name: cycle_estimate(functions[name]), reverse=True)[:KEPT_FUNCTIONS]
    caches = [d for d in full.descriptions if d.split(" ", 1)[0] in ("I1", "D1", "LL")]
    return (events, {name: functions[name] for name in kept if functions[name].get("Ir", 0) > 0}, caches), None


def ratio(reading: CacheReading, reference: CacheReading | None, counter: str) -> float:
    """The contender's counter per call / the reference's (nan when either has none or it is 0)."""
    if reference is None or not reading.per_call or not reference.per_call:
        return math.nan
    mine, theirs = reading.counters[counter][0], reference.counters[counter][0]
    return mine / theirs if theirs else math.nan
