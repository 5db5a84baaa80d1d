"""Start-up time of the command line: ``perflab --help`` and ``perflab run --help`` beside
``python -m pyperf --help`` (the anchor of issue 13), measured interleaved in one run.

Each trial starts the three commands once each, in a rotating order, as fresh processes (the
way a user types them), and times each from spawn to exit with time.perf_counter. The figure is
the median over trials with a 95% interval (a distribution-free interval for the median from
order statistics, scipy.stats.binom), and the ratio perflab/pyperf from the per-trial ratios
(same trial = same machine state). The target of issue 24 is perflab --help within 1.5 x pyperf's
start-up; the modules each command imports (counted once, outside the timing, with
``python -X importtime``) say where a regression comes from (tests/worker/test_startup.py keeps the list).

A second figure: the CPU time of a measuring verb's own process (``perflab run`` of a two-contender
benchmark with the tests' quick preset, tests/support/cli.py's QUICK: 2 rounds; its workers not
counted: getrusage(RUSAGE_SELF) at its exit), beside the same run with ``import scipy.stats``
first, which is what the run paid before its intervals moved to scipy.special (issue 24: every
one of the suite's perflab subprocesses paid it). A quarter as many trials as above, the two
alternating. From the same runs, the CPU of the whole run, its workers included (getrusage
(RUSAGE_CHILDREN) around it: the run and every process it waited for): what one quick perflab
run costs the test suite.

A third: the CPU of one worker's start-up (``python -m perflab.bench.worker``) for a "describe"
job and for a "time" job of one value, beside ``python -c pass`` (the interpreter's own start-up),
interleaved, as many trials as the first figure (RUSAGE_CHILDREN around each process), and how
many modules each worker imports beyond ``python -c pass``'s. CPU time, unlike wall time, is steady
under load (but not exact: a loaded machine's caches inflate it). With ``--against REV``, the
workers of REV's perflab (its src/ from ``git archive``, compiled, first on PYTHONPATH) are
measured too, interleaved with this tree's, and what this tree saves per worker is the median of
the per-trial differences (same trial = same machine state), with its 95% interval.

    python benchmarks/startup.py --trials 40
    python benchmarks/startup.py --trials 40 --against main   # a worker's start-up, before and after
    python benchmarks/startup.py --quick        # smoke run: 3 trials
"""

from __future__ import annotations

import compileall
import io
import json
import math
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

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
# The tests' quick preset (tests/support/cli.py's QUICK), without the results store.
RUN = ["run", "bench.py", "--no-store", "--precision", "50", "--max-time", "60", "--values", "5"]
RUN += ["--value-time", "0.002", "--debug-rounds", "2", "--timeout", "30"]
VERB_VARIANTS = {"perflab run": OWN_CPU, "perflab run + import scipy.stats": "import scipy.stats\n" + OWN_CPU}
WHOLE_RUN = "perflab run, its workers included"


def children_cpu(command: list[str], **options: Any) -> tuple[float, subprocess.CompletedProcess]:
    """CPU seconds (user + system) of ``command`` and of every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True, **options)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done


def verb_cpu(trials: int, directory: Path) -> dict[str, list[float]]:
    """CPU seconds of ``perflab run``'s own process, with and without scipy.stats, alternating; and
    of the whole run without scipy.stats."""
    seconds: dict[str, list[float]] = {name: [] for name in [*VERB_VARIANTS, WHOLE_RUN]}
    names = list(VERB_VARIANTS)
    for trial in range(trials):
        for name in names[trial % 2 :] + names[: trial % 2]:
            whole, done = children_cpu([sys.executable, "-c", VERB_VARIANTS[name], *RUN], cwd=directory)
            seconds[name].append(float(done.stdout.split()[-1]))
            if name == "perflab run":
                seconds[WHOLE_RUN].append(whole)
    return seconds


def worker_jobs(directory: Path) -> dict[str, str]:
    """Standard input of a worker for each job measured: a describe job, and a time job of one value."""
    bench = str(directory / "bench.py")
    describe = {"mode": "describe", "file": bench, "sys_path": []}
    timing = {"mode": "time", "file": bench, "contender": "loop", "sys_path": [], "case": "SMALL", "loops": 100}
    timing.update(cpu=None, value_time=0.002, reference=None)
    commands = "".join(json.dumps({"do": do}) + "\n" for do in ("value", "exit"))
    return {"describe worker": json.dumps(describe) + "\n", "time worker": json.dumps(timing) + "\n" + commands}


PASS = "python -c pass"
WORKER = [sys.executable, "-m", "perflab.bench.worker"]


def source_tree(revision: str, into: Path) -> Path:
    """perflab's src/ at ``revision`` of this repository, compiled (as the tests' conftest compiles
    this tree's), under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(Path(__file__).resolve().parent.parent), "archive", revision, "src"], capture_output=True
    )
    if archive.returncode != 0:
        sys.exit(f"--against {revision}: {archive.stderr.decode().strip().splitlines()[-1]}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    compileall.compile_dir(into / "src", quiet=1)
    return into / "src"


def worker_runs(directory: Path, trees: dict[str, Path | None]) -> dict[str, tuple[list[str], str, dict[str, str]]]:
    """``python -c pass`` and a worker per job and tree (label -> its src/ on PYTHONPATH, None: this
    environment's perflab), as (command, standard input, environment)."""
    runs = {PASS: ([sys.executable, "-c", "pass"], "", dict(os.environ))}
    for label, source in trees.items():
        environment = {**os.environ, "PYTHONPATH": str(source)} if source else dict(os.environ)
        for name, job in worker_jobs(directory).items():
            runs[f"{name}{label}"] = (WORKER, job, environment)
    return runs


def worker_cpu(trials: int, runs: dict[str, tuple[list[str], str, dict[str, str]]]) -> dict[str, list[float]]:
    """CPU seconds of each of ``runs``, interleaved in rotating order."""
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for trial in range(trials):
        for name in names[trial % len(names) :] + names[: trial % len(names)]:
            command, job, environment = runs[name]
            cpu, done = children_cpu(command, input=job, env=environment)
            assert name == PASS or '"event": "done"' in done.stdout, done.stdout + done.stderr
            seconds[name].append(cpu)
    return seconds


def worker_modules(command: list[str], job: str, environment: dict[str, str]) -> int:
    """How many modules ``command`` imports, given ``job`` on its standard input (``-X importtime``)."""
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]], input=job, capture_output=True, text=True, env=environment
    )
    return sum(line.startswith("import time:") and "|" in line for line in done.stderr.splitlines()) - 1


def modules_imported(command: list[str]) -> int:
    """How many modules ``command`` imports (lines of ``-X importtime``, the interpreter's own included)."""
    done = subprocess.run([command[0], "-X", "importtime", *command[1:]], capture_output=True, text=True, check=True)
    return sum(line.startswith("import time:") and "|" in line for line in done.stderr.splitlines()) - 1  # the header


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 40, "interleaved trials")
    arguments.add_argument(
        "--against", metavar="REV", help="also measure the workers of this revision's perflab, interleaved"
    )
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
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "bench.py").write_text(BENCH)
        cpu = verb_cpu(verb_trials, Path(directory))
        trees: dict[str, Path | None] = {"": None}
        if args.against:
            trees[f" ({args.against})"] = source_tree(args.against, Path(directory) / "against")
        runs = worker_runs(Path(directory), trees)
        workers = worker_cpu(args.trials, runs)
        modules_beyond = {name: worker_modules(*run) - worker_modules(*runs[PASS]) for name, run in runs.items()}
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
        "worker start-up CPU seconds": {name: median_interval(values) for name, values in workers.items()},
        "raw worker start-up CPU seconds": workers,
        "modules a worker imports beyond python -c pass": modules_beyond,
        "worker CPU saved against": {
            name: median_interval(list(np.array(workers[f"{name} ({args.against})"]) - np.array(workers[name])))
            for name in worker_jobs(Path())
            if args.against
        },
        "CPU method": "getrusage(RUSAGE_CHILDREN) around each process: user + system of it and of every "
        "process it waited for; median with order-statistic 95% interval",
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
    print(f"CPU of a quick perflab run ({' '.join(RUN)}), {verb_trials} trials each, alternating:")
    for name, (median, low, high) in figure["own CPU seconds of a measuring verb"].items():
        counted = "" if name == WHOLE_RUN else " (its workers not counted)"
        print(f"  {name:<34} {median:.2f} s CPU  [95% CI {low:.2f}-{high:.2f}]{counted}")
    saved = np.array(cpu["perflab run + import scipy.stats"]) - np.array(cpu["perflab run"])
    median, low, high = median_interval(list(saved))
    print(f"  scipy.stats would add: {median:.2f} s CPU [95% CI {low:.2f}-{high:.2f}] to every measuring verb")
    print(f"CPU of a worker's start-up, {args.trials} trials each, interleaved (RUSAGE_CHILDREN around each process):")
    for name, (median, low, high) in figure["worker start-up CPU seconds"].items():
        imported = "" if name == PASS else f"  {modules_beyond[name]} modules beyond python -c pass's"
        print(f"  {name:<34} {median * 1000:4.0f} ms CPU  [95% CI {low * 1000:.0f}-{high * 1000:.0f}]{imported}")
    for name, (median, low, high) in figure["worker CPU saved against"].items():
        print(
            f"  {name} saves {median * 1000:.1f} ms CPU [95% CI {low * 1000:.1f}, {high * 1000:.1f}] against {args.against}"
        )
    _cli.written(path)
    return 0 if all(math.isfinite(v[0]) for v in figure["seconds"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
