"""Start-up time of the command line: ``perflab --help`` and ``perflab run --help`` beside
``python -m pyperf --help`` (the anchor of issue 13), measured interleaved in one run.

Each trial starts the three commands once each, in a rotating order, as fresh processes (the
way a user types them), and times each from spawn to exit with time.perf_counter. The figure is
the median over trials with a 95% interval (a distribution-free interval for the median from
order statistics, scipy.stats.binom), and the ratio perflab/pyperf from the per-trial ratios
(same trial = same machine state). The target of issue 24 is perflab --help within 1.5 x pyperf's
start-up; the modules each command imports (counted once, outside the timing, with
``python -X importtime``) say where a regression comes from (tests/test_startup.py keeps the list).

A second figure: the CPU time of a measuring verb's own process (``perflab run`` of a two-contender
benchmark at 2 rounds, its workers not counted: getrusage(RUSAGE_SELF) at its exit), beside the
same run with ``import scipy.stats`` first, which is what the run paid before its intervals moved
to scipy.special (issue 24: every one of the suite's perflab subprocesses paid it). A quarter as
many trials as above, the two alternating.

    python benchmarks/startup.py --trials 40
    python benchmarks/startup.py --quick        # smoke run: 3 trials
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _cli
import numpy as np
from _common import conditions, format_load, machine
from scipy import stats as scipy_stats

TARGET_RATIO = 1.5  # issue 24: perflab --help at most 1.5 x python -m pyperf --help
COMMANDS = {
    "perflab --help": [sys.executable, "-m", "perflab", "--help"],
    "perflab run --help": [sys.executable, "-m", "perflab", "run", "--help"],
    "python -m pyperf --help": [sys.executable, "-m", "pyperf", "--help"],
}


def median_interval(values: list[float]) -> tuple[float, float, float]:
    """The median and a 95% distribution-free interval from order statistics."""
    ordered = np.sort(values)
    n = len(ordered)
    low = int(scipy_stats.binom.ppf(0.025, n, 0.5))
    high = int(scipy_stats.binom.isf(0.025, n, 0.5))
    return float(np.median(ordered)), float(ordered[max(low - 1, 0)]), float(ordered[min(high, n - 1)])


BENCH = """
import perflab
bench = perflab.Benchmark("sum")

@bench.case
def SMALL():
    return list(range(100))

@bench.contender
def builtin(xs):
    return sum(xs)

@bench.contender
def loop(xs):
    total = 0
    for x in xs:
        total += x
    return total
"""
# perflab run in this process, then its own CPU seconds (user + system) on the last line.
OWN_CPU = """
import resource, runpy, sys
sys.argv = ["perflab", *sys.argv[1:]]
try:
    runpy.run_module("perflab", run_name="__main__")
except SystemExit as done:
    assert not done.code, done.code
usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_utime + usage.ru_stime)
"""
RUN = ["run", "bench.py", "--no-store", "--no-fuzz", "--precision", "50", "--values", "5", "--value-time", "0.002"]
RUN += ["--debug-rounds", "2"]
VERB_VARIANTS = {"perflab run": OWN_CPU, "perflab run + import scipy.stats": "import scipy.stats\n" + OWN_CPU}


def verb_cpu(trials: int) -> dict[str, list[float]]:
    """CPU seconds of ``perflab run``'s own process, with and without scipy.stats, alternating."""
    seconds: dict[str, list[float]] = {name: [] for name in VERB_VARIANTS}
    names = list(VERB_VARIANTS)
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "bench.py").write_text(BENCH)
        for trial in range(trials):
            for name in names[trial % 2 :] + names[: trial % 2]:
                done = subprocess.run(
                    [sys.executable, "-c", VERB_VARIANTS[name], *RUN],
                    cwd=directory, capture_output=True, text=True, check=True,
                )  # fmt: skip
                seconds[name].append(float(done.stdout.split()[-1]))
    return seconds


def modules_imported(command: list[str]) -> int:
    """How many modules ``command`` imports (lines of ``-X importtime``, the interpreter's own included)."""
    done = subprocess.run([command[0], "-X", "importtime", *command[1:]], capture_output=True, text=True, check=True)
    return sum(line.startswith("import time:") and "|" in line for line in done.stderr.splitlines()) - 1  # the header


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 40, "interleaved trials")
    args = _cli.parse(arguments, trials=3)
    modules = {name: modules_imported(command) for name, command in COMMANDS.items()}
    before = conditions()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    names = list(COMMANDS)
    for trial in range(args.trials):
        for name in names[trial % len(names) :] + names[: trial % len(names)]:
            start = time.perf_counter()
            subprocess.run(COMMANDS[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    verb_trials = max(1, args.trials // 4)
    cpu = verb_cpu(verb_trials)
    after = conditions()
    figure = {
        "machine": machine(),
        "conditions": {"before": before, "after": after},
        "trials": args.trials,
        "method": "fresh process per command, rotating order, spawn to exit; median with order-statistic "
        "95% interval; ratio = median over trials of perflab/pyperf in the same trial",
        "seconds": {name: median_interval(values) for name, values in times.items()},
        "modules imported": modules,
        "raw": times,
        "own CPU seconds of a measuring verb": {name: median_interval(values) for name, values in cpu.items()},
        "own CPU trials": verb_trials,
        "raw own CPU seconds": cpu,
    }
    pyperf = np.array(times["python -m pyperf --help"])
    for name in ("perflab --help", "perflab run --help"):
        figure[f"ratio {name} / pyperf"] = median_interval(list(np.array(times[name]) / pyperf))
    path = _cli.write_figure("startup", figure)
    print(f"start-up, {args.trials} trials each, interleaved ({format_load(before)} -> {format_load(after)}):")
    for name, (median, low, high) in figure["seconds"].items():
        print(
            f"  {name:<26} {median * 1000:6.0f} ms  [95% CI {low * 1000:.0f}-{high * 1000:.0f}]"
            f"  {modules[name]} modules imported"
        )
    for name in ("perflab --help", "perflab run --help"):
        median, low, high = figure[f"ratio {name} / pyperf"]
        within = "within" if high <= TARGET_RATIO else "NOT within" if low > TARGET_RATIO else "undecided against"
        print(f"  {name} / pyperf: x{median:.2f} [{low:.2f}-{high:.2f}] ({within} the x{TARGET_RATIO} target)")
    print(f"own CPU of a measuring verb, {verb_trials} trials each, alternating (its workers not counted):")
    for name, (median, low, high) in figure["own CPU seconds of a measuring verb"].items():
        print(f"  {name:<34} {median:.2f} s CPU  [95% CI {low:.2f}-{high:.2f}]")
    saved = np.array(cpu["perflab run + import scipy.stats"]) - np.array(cpu["perflab run"])
    median, low, high = median_interval(list(saved))
    print(f"  scipy.stats would add: {median:.2f} s CPU [95% CI {low:.2f}-{high:.2f}] to every measuring verb")
    _cli.written(path)
    return 0 if all(math.isfinite(v[0]) for v in figure["seconds"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
