"""Figure: time to a verdict, quiet and beside CPU load, with the stopping rule on the answer
against the fixed-precision rule and against pyperf (issue 40: "answers in seconds on a busy
machine too").

Pairs, written by the script as benchmark files: a reference doing ``RATIO`` times the work of its
contender (pure-Python loops, same output), for true ratios 15x, 2x, 1.2x, 1.05x, 1.02x and 1.0
(A/A: one function twice, where any verdict but "no detectable difference" is false). Each pair
is measured, in each condition (quiet; ``bursty``: one process per CPU, pinned, 3 ms busy and 5 ms
asleep; ``steady``: one always-busy process per CPU, pinned), by:

- ``perflab compare FILE --no-fuzz --json OUT`` at its defaults: the rule on the answer;
- the same with ``--precision 1``: the fixed-precision rule (the default before issue 40);
- pyperf (unless ``--no-pyperf``): ``python -m pyperf timeit`` at its defaults for each side, then
  ``python -m pyperf compare_to``, as a user of pyperf compares two functions.

Printed per condition and pair: each tool's wall time for the whole command (fuzzing is off for
perflab, its equivalence checks on), its verdict and ratio with its interval, why perflab stopped and
after how many rounds, and the load average. Done-when of issue 40: beside bursty load, 2x or more
decided in under 10 s and 1.2x in under 20 s at the defaults; quietly, no pair slower than with
the fixed-precision rule.

    python benchmarks/sequential_verdicts.py                       # every pair, condition and tool
    python benchmarks/sequential_verdicts.py --conditions bursty --ratios 15 2 1.2 --no-pyperf
    python benchmarks/sequential_verdicts.py --aa-trials 40 --aa-max-time 10 --conditions quiet --ratios
    python benchmarks/sequential_verdicts.py --quick               # smoke run: one pair, quietly
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _cli
from _common import binomial_interval, conditions, cpu_load, finish, machine_line, new_figure, perflab_json

NAME = "sequential_verdicts"
RATIOS = (15.0, 2.0, 1.2, 1.05, 1.02, 1.0)
RULES = {"answered": [], "precise": ["--precision", "1"]}  # perflab options of each rule
# Loop iterations of the contender's call: about 0.2 ms on this project's VM.
BASE = 2_400
BENCHMARK = """
import perflab

bench = perflab.Benchmark("ratio_{label}")


def work(iterations):
    total = 0
    for i in range(iterations):
        total += i % 7
    return total


@bench.case
def N():
    return {base}


@bench.contender
def reference(n):
    {reference}
    return n


@bench.contender
def contender(n):
    work(n)
    return n
"""


def write_pair(folder: Path, ratio: float) -> Path:
    label = f"{ratio:g}".replace(".", "_")
    path = folder / f"bench_ratio_{label}.py"
    # A/A: the contender's very body (work(round(n * 1.0)) read 1.3% slower than work(n) quietly).
    reference = "work(n)" if ratio == 1.0 else f"work(round(n * {ratio!r}))"
    path.write_text(BENCHMARK.format(label=label, base=BASE, reference=reference))
    return path


def perflab_trial(path: Path, out: Path, options: list[str]) -> dict:
    run = perflab_json(["compare", str(path), "--no-fuzz", "--no-store", *options], out)
    comparison = run.comparison("contender")
    ratio = comparison["comparison"]["ratio"]
    stopped = run.result["metadata"].get("stopped", {}).get("N", {})
    return {
        "wall_s": round(run.wall, 2),
        "verdict": comparison["verdict"],
        "ratio": float(ratio["value"]),
        "ci": [float(ratio["low"]), float(ratio["high"])],
        "anytime": comparison["comparison"].get("anytime", False),
        "stopped": stopped.get("why"),
        "rounds": stopped.get("rounds", run.rounds()),
        "load_average": conditions()["load_average"],
    }


def pyperf_trial(path: Path, folder: Path, smoke: bool) -> dict:
    """pyperf timeit of each side at its defaults, then compare_to: wall time of all three."""
    module = path.stem
    started = time.monotonic()
    outputs = []
    for side in ("reference", "contender"):
        out = folder / f"pyperf_{side}.json"
        out.unlink(missing_ok=True)
        # One name for both: compare_to compares the benchmarks of two files by name.
        command = [sys.executable, "-m", "pyperf", "timeit", "--quiet", "--name", module, "-o", str(out)]
        command += ["--processes", "2", "--values", "1", "--loops", "1", "--warmups", "0"] if smoke else []
        command += ["-s", f"from {module} import {side}, N; n = N()", f"{side}(n)"]
        subprocess.run(command, cwd=folder, check=True, stdout=subprocess.DEVNULL)
        outputs.append(str(out))
    completed = subprocess.run(
        [sys.executable, "-m", "pyperf", "compare_to", *outputs], capture_output=True, text=True, check=True
    )
    said = completed.stdout.strip().splitlines()[-1] if completed.stdout.strip() else ""
    return {"wall_s": round(time.monotonic() - started, 2), "said": said, "load_average": conditions()["load_average"]}


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--ratios", nargs="*", type=float, default=list(RATIOS), help="true ratios (none: A/A only)")
    arguments.add_argument(
        "--conditions", nargs="+", choices=("quiet", "bursty", "steady"), default=["quiet", "bursty", "steady"]
    )
    arguments.add_argument("--rules", nargs="+", choices=sorted(RULES), default=sorted(RULES))
    arguments.add_argument("--no-pyperf", action="store_true", help="leave pyperf out")
    _cli.add_trials(arguments, 0, "extra A/A runs (ratio 1.0) of the default rule per condition", "--aa-trials")
    arguments.add_argument(
        "--aa-max-time", type=float, help="perflab --max-time of the extra A/A runs (default: its own)"
    )
    _cli.add_name(arguments, NAME)
    args = _cli.parse(arguments, ratios=[15.0], conditions=["quiet"], rules=["answered"], aa_trials=0)
    smoke = ["--max-time", "8", "--values", "5", "--value-time", "0.002"] if _cli.is_smoke() else []
    settings = {"base_iterations": BASE, "options": smoke, "aa_max_time": args.aa_max_time}
    figure = new_figure(args.name, settings, pairs={})
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for condition in args.conditions:
            with cpu_load(None if condition == "quiet" else condition):
                for ratio in args.ratios:
                    path = write_pair(folder, ratio)
                    entry = figure["pairs"].setdefault(f"{ratio:g}", {})[condition] = {}
                    for rule in args.rules:
                        entry[rule] = perflab_trial(path, folder / "out.json", RULES[rule] + smoke)
                    if not args.no_pyperf:
                        entry["pyperf"] = pyperf_trial(path, folder, _cli.is_smoke())
                    print(f"{ratio:g}x {condition}: done", flush=True)
                if args.aa_trials:
                    path = write_pair(folder, 1.0)
                    budget = ["--max-time", f"{args.aa_max_time:g}"] if args.aa_max_time else []
                    figure.setdefault("aa", {})[condition] = [
                        perflab_trial(path, folder / "out.json", budget + smoke) for _ in range(args.aa_trials)
                    ]
                    print(f"A/A {condition}: {args.aa_trials} runs done", flush=True)
    return finish(args.name, figure, summarize, show)


def summarize(figure: dict) -> None:
    for condition, trials in figure.get("aa", {}).items():
        false = sum(t["verdict"] != "no detectable difference" for t in trials)
        covered = sum(t["ci"][0] <= 1.0 <= t["ci"][1] for t in trials)
        figure.setdefault("aa_summary", {})[condition] = {
            "false_verdicts": [false, len(trials), binomial_interval(false, len(trials))],
            "intervals_covering_1": [covered, len(trials)],
            "wall_s_median": sorted(t["wall_s"] for t in trials)[len(trials) // 2],
        }


def show(figure: dict) -> None:
    print(machine_line(figure))
    for ratio, by_condition in figure["pairs"].items():
        for condition, entry in by_condition.items():
            print(f"true ratio {ratio}x, {condition}:")
            for rule in sorted(RULES):
                trial = entry.get(rule)
                if trial:
                    low, high = trial["ci"]
                    print(
                        f"  perflab {rule:<8} {trial['wall_s']:6.1f} s  {trial['verdict']:<24} ratio {trial['ratio']:.4f} "
                        f"[{low:.4f}, {high:.4f}]  stopped: {trial['stopped']} after {trial['rounds']} rounds"
                        f"  (load {' '.join(f'{x:.1f}' for x in trial['load_average'])})"
                    )
            if "pyperf" in entry:
                pyperf = entry["pyperf"]
                print(f"  pyperf           {pyperf['wall_s']:6.1f} s  {pyperf['said']}")
    for condition, summary in figure.get("aa_summary", {}).items():
        false, trials, (low, high) = summary["false_verdicts"]
        print(
            f"A/A {condition}: {false}/{trials} false verdicts (95% interval {low:.1%}-{high:.1%}), "
            f"{summary['intervals_covering_1'][0]}/{trials} intervals cover 1, median {summary['wall_s_median']} s"
        )


if __name__ == "__main__":
    sys.exit(main())
