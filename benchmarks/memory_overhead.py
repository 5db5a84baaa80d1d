"""Figure: how much memray's tracking slows down the measured region, under perflab's memory
profile and under memray run by hand (issue 29: "the time overhead of the memory profile on the
measured region against memray run by hand").

Every setting is one fresh process running the same driver: json.dumps on pyperformance's NESTED
object (the json_dumps built-in's data: many small allocations), called through perflab's
measured region (perflab.bench.worker.region), ``--batches`` batches of a fixed number of calls
after a warm-up, printing the median time per call. Settings:

- untracked: the driver alone (the reference of every pair);
- perflab profile --memory: the calls inside ``memray.Tracker(..., trace_python_allocators=True)``,
  exactly as perflab's allocations job opens it (perflab.bench.worker.allocations);
- perflab profile --memory --native: the same with ``native_traces=True``;
- memray run (its defaults), with --trace-python-allocators, --native, and both (perflab's two
  settings by hand): the driver untouched, run by ``python -m memray run -q -o FILE``, as a user
  would.

Each pair is the untracked driver and one setting, in alternating order (ABBA across pairs), so the
machine's drifts cancel in the per-pair ratio; the slowdown is the geometric mean over pairs with
a t interval. A timing figure: take it on a quiet machine (the load average is recorded).

    python benchmarks/memory_overhead.py [--pairs 8]
    python benchmarks/memory_overhead.py --quick     # smoke run: 2 pairs, perflab's and memray run's defaults

Writes benchmarks/results/memory_overhead.json.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _cli
from _common import conditions, new_figure

from perflab.analysis.intervals import t_quantile

NAME = "memory_overhead"

DRIVER = """
import json, statistics, sys, time
from perflab.bench.worker.region import measured_region
from perflab.builtins.json_dumps import NESTED_DATA

loops, batches, tracker, capture = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
data = dict(NESTED_DATA)


def measure():
    measured_region(json.dumps, data, loops)  # warm-up
    return statistics.median(measured_region(json.dumps, data, loops) / loops for _ in range(batches))


if tracker == "none":
    print(measure())
else:
    import memray
    with memray.Tracker(capture, native_traces=tracker == "native", trace_python_allocators=True):
        print(measure())
"""

# name: (the driver's own tracker, the memray run options or None: not under memray run)
SETTINGS = {
    "perflab profile --memory": ("python", None),
    "perflab profile --memory --native": ("native", None),
    "memray run (defaults)": ("none", []),
    "memray run --trace-python-allocators": ("none", ["--trace-python-allocators"]),
    "memray run --native": ("none", ["--native"]),
    "memray run --native --trace-python-allocators": ("none", ["--native", "--trace-python-allocators"]),
}
QUICK = ["perflab profile --memory", "memray run (defaults)"]


def seconds_per_call(driver: Path, loops: int, batches: int, tracker: str, memray_run: list[str] | None) -> float:
    with tempfile.TemporaryDirectory(prefix="perflab-memory-overhead-") as scratch:
        capture = str(Path(scratch) / "capture.bin")
        arguments = [str(driver), str(loops), str(batches), tracker, capture]
        command = [
            sys.executable,
            *(["-m", "memray", "run", "-q", *memray_run, "-o", capture] if memray_run is not None else []),
            *arguments,
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{NAME}: {' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return float(done.stdout.strip().splitlines()[-1])


def slowdown(log_ratios: list[float]) -> dict:
    """The geometric mean ratio (setting / untracked) over pairs, with a 95% t interval."""
    mean = statistics.fmean(log_ratios)
    half = t_quantile(len(log_ratios) - 1, 0.975) * statistics.stdev(log_ratios) / math.sqrt(len(log_ratios))
    return {"ratio": math.exp(mean), "ci": [math.exp(mean - half), math.exp(mean + half)], "pairs": len(log_ratios)}


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--pairs", type=int, default=8, help="ABBA pairs per setting (default 8)")
    arguments.add_argument("--loops", type=int, default=2000, help="calls per batch (default 2000)")
    arguments.add_argument("--batches", type=int, default=5, help="batches per process, median taken (default 5)")
    args = _cli.parse(arguments, pairs=2, loops=200, batches=3)
    if args.pairs < 2:
        arguments.error("--pairs: at least 2 (an interval needs two pairs)")
    settings = {name: SETTINGS[name] for name in (QUICK if _cli.is_smoke() else SETTINGS)}
    figure = new_figure(NAME, {"pairs": args.pairs, "loops": args.loops, "batches": args.batches}, results={})
    with tempfile.TemporaryDirectory(prefix="perflab-memory-overhead-") as scratch:
        driver = Path(scratch) / "driver.py"
        driver.write_text(DRIVER)
        for name, (tracker, memray_run) in settings.items():
            before, log_ratios, untracked = conditions(), [], []
            for pair in range(args.pairs):
                times = {}
                for tracked in (True, False) if pair % 2 == 0 else (False, True):
                    times[tracked] = (
                        seconds_per_call(driver, args.loops, args.batches, tracker, memray_run)
                        if tracked
                        else seconds_per_call(driver, args.loops, args.batches, "none", None)
                    )
                log_ratios.append(math.log(times[True] / times[False]))
                untracked.append(times[False])
            result = {
                **slowdown(log_ratios),
                "untracked_median_s": statistics.median(untracked),
                "log_ratios": log_ratios,
            }
            figure["results"][name] = {**result, "conditions": [before, conditions()]}
            low, high = result["ci"]
            print(
                f"{name:46s} x{result['ratio']:.2f} [95% CI {low:.2f}, {high:.2f}] per call of json.dumps(NESTED) "
                f"({result['pairs']} ABBA pairs; untracked median {result['untracked_median_s'] * 1e6:.1f} us; "
                f"load average {before['load_average'][0]:.2f})",
                flush=True,
            )
    figure["end"] = conditions()
    _cli.written(_cli.write_figure(NAME, figure))
    return 0


if __name__ == "__main__":
    sys.exit(main())
