"""Figure: instruction-count stability, and a sub-percent change counts see but wall time cannot.

1. Stability: instructions per call (perflab.metrics.instructions.count_once, exactly what
   ``perflab run --metric instructions`` runs: valgrind --tool=callgrind on a worker, 0 and N calls
   between region markers, PYTHONHASHSEED=0) counted REPEATS times in separate processes for three
   operations: the json_dumps built-in's stdlib reference on its NESTED case, and the two
   contenders below. Spread = (max - min) / median. Target <= 0.05%. Also: the same json count
   with one more environment variable in perflab's environment (counted workers keep only a few
   variables, because every variable shifts what is allocated before the region), and with
   address-space randomization left on (no ``setarch -R``).
2. Detection: contender ``extra`` does the same as ``base`` (sum of squares of 2,000 ints) plus 8
   more loop iterations over a slice, about 0.5% more work. Counted: its instruction ratio to
   ``base`` and whether the change is larger than 10x the larger spread of the two. Timed: the
   real ``perflab run`` at its default budget (--precision 1%, --max-time 60, --min-effect 1%),
   WALL_RUNS times: the verdict, and whether the 95% interval of the time ratio excludes 1.

    python benchmarks/instruction_stability.py
    python benchmarks/instruction_stability.py --quick   # smoke run: extra_work only, 1 count of 20 calls each, 1 randomized

A smoke run costs 18-25 CPU-seconds (quiet to loaded 2-core VM): three callgrind processes (base, extra, and one with address
randomization on, each a Python worker's start-up under valgrind, ~6 CPU-seconds) and a timed run.

Writes benchmarks/results/instruction_stability.json.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, machine, run_perflab

from perflab import builtins
from perflab.metrics import instructions
from perflab.metrics.count_jobs import Target, require

REPEATS = 5
WALL_RUNS = 3
LOOPS = 300
TARGET_SPREAD = 0.0005

EXTRA_WORK = """
import perflab
bench = perflab.Benchmark("extra_work", compare="exact")

@bench.case(items=2000)
def INTS():
    return list(range(2000))

@bench.contender(reference=True)
def base(xs):
    total = 0
    for x in xs:
        total += x * x
    return total

@bench.contender
def extra(xs):
    total = 0
    for x in xs:
        total += x * x
    for x in xs[:8]:  # ~0.5% more work, same result
        total += x * 0
    return total
"""


def count(file: str, case: str, contender: str, randomize_addresses: bool = False) -> list[float]:
    """Instructions per call from REPEATS separate callgrind runs (two at a time)."""
    valgrind = require("valgrind", "valgrind")
    target = Target.of(file, case, contender)
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(
            pool.map(
                lambda _: instructions.count_once(valgrind, target, LOOPS, randomize_addresses=randomize_addresses),
                range(REPEATS),
            )
        )
    errors = [error for _, error in outcomes if error]
    if errors:
        raise RuntimeError(f"{case}/{contender}: {errors[0]}")
    return [per_call for per_call, _ in outcomes]


def spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def main() -> None:
    global REPEATS, WALL_RUNS, LOOPS
    wall_options: list[str] = []  # perflab's defaults
    quick = _cli.parse(_cli.parser(__doc__)).quick
    if quick:
        REPEATS, WALL_RUNS, LOOPS = 1, 1, 20  # each count starts a Python worker under valgrind: one each
        wall_options = ["--max-time", "60", "--precision", "50", "--values", "5", "--value-time", "0.002"]
        wall_options += ["--debug-rounds", "2"]
    os.environ.setdefault("PERFLAB_DB", str(Path(tempfile.mkdtemp()) / "perflab.db"))  # keep the project's store clean
    before = conditions()
    work = Path(tempfile.mkdtemp(prefix="perflab-figure-")) / "extra_work.py"
    work.write_text(EXTRA_WORK)
    operations = {
        "json_dumps/NESTED/json_stdlib": (str(builtins.path_of("json_dumps")), "NESTED", "json_stdlib"),
        "extra_work/INTS/base": (str(work), "INTS", "base"),
        "extra_work/INTS/extra": (str(work), "INTS", "extra"),
    }
    if quick:  # a smoke run counts extra_work's two contenders, once each, and one randomized run
        del operations["json_dumps/NESTED/json_stdlib"]
    sensitive = next(iter(operations))  # the operation the sensitivity to the environment is measured on
    stability = {}
    for name, (file, case, contender) in operations.items():
        started = time.monotonic()
        values = count(file, case, contender)
        stability[name] = {
            "per_call": values,
            "median": statistics.median(values),
            "spread": spread(values),
            "seconds": round(time.monotonic() - started, 1),
        }
        print(
            f"{name}: {statistics.median(values):,.1f} instructions/call, spread {spread(values):.4%} "
            f"over {REPEATS} runs of {LOOPS} calls ({stability[name]['seconds']} s)"
        )

    sensitivity = {}
    file, case, contender = operations[sensitive]
    if not quick:  # the same count() as above with one more variable: a smoke run skips its two runs
        os.environ["PERFLAB_FIGURE_PADDING"] = "x" * 200
        sensitivity["one_more_environment_variable"] = count(file, case, contender)
        del os.environ["PERFLAB_FIGURE_PADDING"]
    sensitivity["address_randomization_on"] = count(file, case, contender, randomize_addresses=True)
    reference = stability[sensitive]["median"]
    for name, values in sensitivity.items():
        sensitivity[name] = {
            "per_call": values,
            "spread": spread(values),
            "median_change": statistics.median(values) / reference - 1,
        }
        print(
            f"{sensitive} with {name.replace('_', ' ')}: median {sensitivity[name]['median_change']:+.4%}, "
            f"spread {sensitivity[name]['spread']:.4%}"
        )

    base, extra = stability["extra_work/INTS/base"], stability["extra_work/INTS/extra"]
    instruction_change = extra["median"] / base["median"] - 1
    noise = max(base["spread"], extra["spread"])
    detected = instruction_change > 10 * noise
    print(
        f"extra vs base: instructions {instruction_change:+.3%} (largest spread {noise:.4%}): "
        f"{'detected' if detected else 'NOT detected'}"
    )

    wall = []
    for trial in range(WALL_RUNS):
        run = run_perflab(str(work), work.with_suffix(f".{trial}.json"), *wall_options)
        summary = run.summary("extra")
        summary["excludes_1"] = not summary["ratio_ci"][0] <= 1.0 <= summary["ratio_ci"][1]
        wall.append(summary)
        print(
            f"wall time run {trial + 1}: time ratio {summary['ratio']:.4f} "
            f"[{summary['ratio_ci'][0]:.4f}, {summary['ratio_ci'][1]:.4f}], verdict {summary['verdict']!r}, "
            f"{summary['timing_s']:.0f} s"
        )
    figure = {
        "figure": "instruction-count stability and sub-percent detection",
        "method": __doc__,
        "repeats": REPEATS,
        "loops": LOOPS,
        "target_spread": TARGET_SPREAD,
        "stability": stability,
        "max_spread": max(s["spread"] for s in stability.values()),
        "sensitivity": sensitivity,
        "detection": {
            "instruction_change": instruction_change,
            "largest_spread": noise,
            "detected": detected,
            "wall_time_runs": wall,
            "wall_time_intervals_excluding_1": sum(w["excludes_1"] for w in wall),
            "wall_time_verdicts": [w["verdict"] for w in wall],
        },
        "machine": machine(),
        "conditions": {"before": before, "after": conditions()},
    }
    print(
        f"largest spread {figure['max_spread']:.4%} (target <= {TARGET_SPREAD:.2%}); wall time: "
        f"{figure['detection']['wall_time_intervals_excluding_1']}/{WALL_RUNS} intervals exclude 1, verdicts "
        f"{figure['detection']['wall_time_verdicts']}"
    )
    _cli.written(_cli.write_figure("instruction_stability", figure))


if __name__ == "__main__":
    main()
