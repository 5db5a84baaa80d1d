"""Figure: how well simulated cache and branch counts repeat across separate runs.

What ``perflab run --metric cache`` runs (perflab.metrics.cache.measure: valgrind's cache and branch
simulation in callgrind, on a worker, 0 and N calls between region markers, address randomization
off, a pinned environment), REPEATS separate processes (two at a time) for the json_dumps built-in's
stdlib reference on its NESTED case. Per counter: the median per call and the spread,
(max - min) / median. Target: spread <= 0.05% for every counter whose median is at least one
event per call (smaller counts, a fraction of one miss per call, are shown but not held to it).
Counts do not depend on the machine's load, so this figure needs no quiet machine.

    python benchmarks/cache_stability.py
    python benchmarks/cache_stability.py --quick   # smoke run: 1 process of 20 calls

A smoke run costs 11-15 CPU-seconds (quiet to loaded 2-core VM), nearly all of it Python's start-up and the worker's imports under
valgrind's cache simulation (50-100x slower than native): one process is the least that runs it.

Writes benchmarks/results/cache_stability.json.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, machine

from perflab import builtins
from perflab.metrics import cache
from perflab.metrics.count_jobs import Target

REPEATS = 3
LOOPS = 300
TARGET_SPREAD = 0.0005


def main() -> None:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--repeats", type=int, default=REPEATS, help=f"separate processes (default {REPEATS})")
    arguments.add_argument("--loops", type=int, default=LOOPS, help=f"calls counted per process (default {LOOPS})")
    # A smoke run starts one valgrind process (the code path, not a spread): its Python start-up under the
    # cache simulation is most of its cost, whatever the calls.
    args = _cli.parse(arguments, repeats=1, loops=20)
    repeats, loops = args.repeats, args.loops
    before = conditions()
    target = Target.of(str(builtins.path_of("json_dumps")), "NESTED", "json_stdlib")
    started = time.monotonic()
    (reading,) = cache.measure([target], repeats=repeats, loops=loops)
    if reading.error:
        raise SystemExit(f"json_dumps/NESTED/json_stdlib: {reading.error}")
    seconds = time.monotonic() - started
    counters = {name: {"median": median, "spread": spread} for name, (median, spread) in reading.counters.items()}
    for name, counter in counters.items():
        print(f"{name}: {counter['median']:,.3f} per call, spread {counter['spread']:.4%}")
    held = [c["spread"] for c in counters.values() if abs(c["median"]) >= 1]
    figure = {
        "figure": "simulated cache and branch count stability",
        "method": __doc__,
        "repeats": repeats,
        "loops": loops,
        "target_spread": TARGET_SPREAD,
        "counters": counters,
        "per_call": reading.per_call,
        "caches": reading.caches,
        "max_spread": max(held),
        "seconds": round(seconds, 1),
        "machine": machine(),
        "conditions": {"before": before, "after": conditions()},
    }
    print(
        f"largest spread of counters >= 1 per call: {figure['max_spread']:.4%} (target <= {TARGET_SPREAD:.2%}), "
        f"{repeats} runs of {loops} calls, {seconds:.0f} s"
    )
    _cli.written(_cli.write_figure("cache_stability", figure))


if __name__ == "__main__":
    main()
