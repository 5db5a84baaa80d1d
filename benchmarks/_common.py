"""Shared pieces of perflab's own figures: running perflab and pyperf, conditions, binomial CIs.

Every figure script runs the real ``perflab`` command (and the real pyperf) as a subprocess, so
the figures measure exactly what a user gets, including process start-up and the equivalence
check. The machine's state (load average, CPU model, date) is recorded with every figure because
the figures depend on it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _cli import HERE, is_smoke, read_figure, timing_options, write_figure, written
from scipy import special

from perflab.analysis import estimates
from perflab.measure.metadata import git_info, machine_info

PYPERF_SCRIPT = HERE / "_pyperf_json_dumps.py"
# pyperf's smallest run, for smoke runs: two worker processes of two values each.
PYPERF_SMOKE = ["--processes", "2", "--values", "2", "--warmups", "1", "--loops", "10"]
# Debian's chromium as root in a closed network (the browser figures): no sandbox, no background connections.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# The figures' benchmark files start with pyperformance's bm_json_dumps NESTED object, taken from the
# json_dumps built-in so that every figure measures the same data.
BENCHMARK_FILE_HEADER = """\
import json

import perflab
from perflab.builtins.json_dumps import NESTED_DATA
"""


# Other work on every CPU, one process per CPU, pinned, for ever (killed with its group): "bursty"
# is 3 ms busy then 5 ms asleep, as a CI runner's neighbours; "steady" is always busy.
CPU_LOAD = textwrap.dedent(
    """
    import os, sys, time
    bursty = sys.argv[1] == "bursty"
    for cpu in sorted(os.sched_getaffinity(0)):
        if os.fork() == 0:
            os.sched_setaffinity(0, {cpu})
            while True:
                end = time.perf_counter() + 0.003
                while time.perf_counter() < end or not bursty:
                    pass
                time.sleep(0.005)
    os.wait()
    """
)


@contextlib.contextmanager
def cpu_load(kind: str | None) -> Iterator[None]:
    """While inside: other work on every CPU, "bursty" or "steady" (CPU_LOAD), or with None nothing."""
    process = subprocess.Popen([sys.executable, "-c", CPU_LOAD, kind], start_new_session=True) if kind else None
    try:
        time.sleep(0.5 if kind else 0)
        yield
    finally:
        if process is not None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def second_cpu_bound_process(wanted: bool) -> Iterator[None]:
    """While inside: a busy loop in another process (unpinned), as another user of a 2-CPU machine."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if wanted else None
    try:
        yield
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def sampler_figure(name: str, how: str | None, args, **more: Any) -> dict[str, Any]:
    """The record of a figure of ABBA windows with and without py-spy (see _cli.add_windows)."""
    from perflab.profile.sampler import find_py_spy, py_spy_version

    return {
        "figure": name,
        "machine": machine(),
        "conditions_start": conditions(),
        "how": how,
        "py_spy": py_spy_version(find_py_spy()),
        "window_s": args.window,
        "second_cpu_bound_process": args.busy,
        **more,
        "results": {},
    }


def chosen(settings: list[tuple], only: list[str] | None) -> list[tuple]:
    """The settings whose name (first item) starts with one of ``only`` (None: all)."""
    return [s for s in settings if not only or s[0].startswith(tuple(only))]


def conditions() -> dict[str, Any]:
    """What the machine was like: recorded at the start and the end of every figure."""
    return {"utc": datetime.now(timezone.utc).isoformat(timespec="seconds"), "load_average": os.getloadavg()}


def machine() -> dict[str, Any]:
    """The machine, and which perflab source the figure measured.

    The figures run ``python -m perflab`` with this process's environment, so
    ``PYTHONPATH=SNAPSHOT/src`` (a ``git archive`` of one commit, with its hash in SNAPSHOT/COMMIT)
    pins them to one commit while the working tree changes under them.
    """
    import perflab

    package = Path(perflab.__file__).resolve().parent
    snapshot = package.parent.parent / "COMMIT"
    return {
        **machine_info(),
        "python": platform.python_version(),
        "perflab_source": str(package),
        "perflab_commit": snapshot.read_text().strip() if snapshot.exists() else git_info(package),
    }


def binomial_interval(successes: int, trials: int) -> list[float]:
    """Exact (Clopper-Pearson) 95% interval of a rate: conservative, valid at 0 and n. Its bounds are
    beta quantiles, from scipy.special: scipy.stats (what binomtest needs) is ~0.6 s of CPU to
    import, in every script's process."""
    if trials == 0:
        return [0.0, 1.0]
    low = special.betaincinv(successes, trials - successes + 1, 0.025) if successes else 0.0
    high = special.betaincinv(successes + 1, trials - successes, 0.975) if successes < trials else 1.0
    return [float(low), float(high)]


# How injected slowdowns are calibrated (power.py's busy loop, compiled_power.py's C loop); a smoke
# run takes fewer batches: its calibration is checked to run, its slowdown is no figure.
BATCHES, SMOKE_BATCHES = 301, 61


def calibration_method() -> str:
    batches = SMOKE_BATCHES if is_smoke() else BATCHES
    return f"min over {batches} alternating ~1 ms batches of each, on one CPU, in the figure's process"


@contextlib.contextmanager
def pinned_to_one_cpu() -> Iterator[None]:
    """While inside, this process runs on one CPU, like perflab's workers: no migration between
    a calibration's batches. Its CPUs are given back as they were (never widened)."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


def min_batch_slowdown(reference: tuple, slow: tuple, batch_time: float = 0.001) -> float:
    """min time(slow) / min time(reference) - 1 over alternating short batches, in this process;
    each side a (function, argument) pair.

    The minimum of many short batches is the time of a batch nobody interrupted: on a shared
    machine it is stable where means and medians follow the load.
    """
    sides = (reference, slow)
    loops = max(1, int(batch_time / _batch_time(reference, 1000) * 1000))
    best = [math.inf, math.inf]
    for index in range(SMOKE_BATCHES if is_smoke() else BATCHES):
        for side in (0, 1) if index % 2 else (1, 0):
            best[side] = min(best[side], _batch_time(sides[side], loops))
    return best[1] / best[0] - 1


def _batch_time(side: tuple, loops: int) -> float:
    function, argument = side
    started = time.perf_counter()
    for _ in range(loops):
        function(argument)
    return time.perf_counter() - started


def calibrate(
    target: float, slowdown_of, probe: int, script: str, zero_at_zero: bool = False, attempts: int = 3
) -> tuple[int, float]:
    """How many iterations of injected work add ``target`` (0.05: 5%), ``slowdown_of(iterations)``
    measuring what a number adds: a line through 0 and ``probe`` iterations, refined once by
    proportion (a short loop costs more per iteration than a long probe says: first guesses came
    out 1.5-2x over sub-5% targets), then checked; drawn again when the check is off by more than
    2x (one noisy point once gave 594 iterations and a 123% slowdown for a 5% target).
    ``zero_at_zero``: 0 iterations is the reference's own code, so its slowdown is 0, not measured
    (measuring it only adds its noise, ~0.5%: enough to double a sub-1% target). Pin the process
    first (pinned_to_one_cpu)."""
    for _ in range(attempts):
        base = 0.0 if zero_at_zero else slowdown_of(0)
        per_iteration = (slowdown_of(probe) - base) / probe
        iterations = max(1, round((target - base) / per_iteration)) if per_iteration > 0 else 1
        checked = slowdown_of(iterations)
        if checked - base > 0 and not 0.8 <= checked / target <= 1.25:
            iterations = max(1, round(iterations * (target - base) / (checked - base)))
            checked = slowdown_of(iterations)
        if target / 2 <= checked <= target * 2:
            return iterations, checked
    if is_smoke():  # a smoke run checks that the script runs, with few batches: a loaded machine misses
        print(f"{script}: calibration missed {target:.1%} (last {checked:.1%}); kept, as this is a smoke run")
        return iterations, checked
    raise SystemExit(
        f"{script}: calibration missed {target:.1%} {attempts} times (last {checked:.1%}); the machine is too "
        "noisy, or pass --iterations"
    )


def injected_work(
    percent: float, slowdown_of, iterations: int | None, probe: int, script: str, zero_at_zero: bool = False
) -> dict[str, Any]:
    """Iterations of injected work that add ``percent`` (``iterations``: given, only checked),
    measured on one CPU: the iterations, the slowdown at calibration and how it was obtained."""
    with pinned_to_one_cpu():
        if iterations is None:
            found, calibrated = calibrate(percent / 100, slowdown_of, probe, script, zero_at_zero)
        else:
            found, calibrated = iterations, slowdown_of(iterations)
    given = "; iterations given by --iterations" if iterations is not None else ""
    return {"iterations": found, "slowdown_at_calibration": calibrated, "method": calibration_method() + given}


@dataclass
class PerflabRun:
    """One ``perflab run ... --json`` subprocess: its wall time and the results it wrote."""

    wall: float
    exit_code: int
    result: dict[str, Any]

    def comparison(self, contender: str) -> dict[str, Any]:
        found = [c for c in self.result["comparisons"] if c["contender"] == contender]
        if not found:  # e.g. not timed: --max-time ran out before a first round
            errors = "; ".join(f"{c['contender']}: {c['error']}" for c in self.result["cells"] if c["error"])
            raise RuntimeError(
                f"perflab compared no {contender!r} (exit {self.exit_code}): {errors or 'no comparison'}"
            )
        return found[0]

    def cell(self, contender: str) -> dict[str, Any]:
        return next(c for c in self.result["cells"] if c["contender"] == contender)

    def rounds(self) -> int:
        return max(len(c["runs"]) for c in self.result["cells"])

    def summary(self, contender: str) -> dict[str, Any]:
        """The numbers every figure reports about one comparison of a run."""
        comparison = self.comparison(contender)
        ratio = comparison["comparison"]["ratio"]
        reference = self.cell(self.result["reference"])
        other = self.cell(contender)
        return {
            "wall_s": round(self.wall, 3),
            "timing_s": round(self.result["elapsed"], 3),
            "exit_code": self.exit_code,
            "rounds": self.rounds(),
            "verdict": comparison["verdict"],
            "ratio": float(ratio["value"]),  # float("inf") reads "inf"
            "ratio_ci": [float(ratio["low"]), float(ratio["high"])],
            "ratio_precision": _relative_half_width(ratio),
            "p_adjusted": comparison["p_adjusted"],
            "target_reached": bool(reference["target_reached"] and other["target_reached"]),
            "median_precision": {
                c["contender"]: _relative_half_width(c["estimates"]["median"]) for c in (reference, other)
            },
            "loops": {c["contender"]: c["loops"] for c in (reference, other)},
        }

    def settings(self) -> dict[str, Any]:
        """The settings perflab ran with, as it recorded them."""
        keys = ("precision", "max_time", "alpha", "min_effect", "min_rounds", "values", "value_time", "warmups")
        return {k: self.result["settings"][k] for k in keys if k in self.result["settings"]}


def _relative_half_width(interval: dict[str, Any]) -> float:
    low, high = (float(interval[k]) for k in ("low", "high"))  # "inf" strings become floats
    return estimates.Interval(interval["value"], low, high).relative_half_width


def run_perflab(benchmark: str | None, out: Path, *options: str) -> PerflabRun:
    """``perflab run BENCHMARK --json OUT OPTIONS`` (no BENCHMARK: ``--command`` options)."""
    return perflab_json(["run", *([benchmark] if benchmark else []), *options], out)


def perflab_json(arguments: list[str], out: Path) -> PerflabRun:
    """``perflab ARGUMENTS --json OUT`` in a subprocess, timed; the table it prints is discarded."""
    command = [sys.executable, "-m", "perflab", *arguments, "--json", str(out)]
    out.unlink(missing_ok=True)
    started = time.monotonic()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if not out.exists():
        raise RuntimeError(
            f"{' '.join(command)} wrote no results (exit {completed.returncode}): {completed.stderr.strip()[-500:]}"
        )
    return PerflabRun(wall, completed.returncode, json.loads(out.read_text()))


def verdict_counts(trials: list[dict[str, Any]]) -> dict[str, int]:
    """How many trials ended in each verdict."""
    return {v: sum(1 for t in trials if t["verdict"] == v) for v in sorted({t["verdict"] for t in trials})}


def run_pyperf(function: str, out: Path, name: str | None = None) -> tuple[float, str]:
    """pyperf at its default settings on one json.dumps-like function; (wall time, its output)."""
    return run_pyperf_runner([str(PYPERF_SCRIPT), "--function", function, "--name", name or function], out)


def run_pyperf_runner(script: list[str], out: Path, *options: str) -> tuple[float, str]:
    """A pyperf ``Runner`` script (its path and arguments) writing ``-o OUT``: (wall time, its output).

    In a smoke run, pyperf runs at its smallest (PYPERF_SMOKE)."""
    out.unlink(missing_ok=True)
    command = [sys.executable, *script, "-o", str(out), "--quiet", *options, *(PYPERF_SMOKE if is_smoke() else [])]
    started = time.monotonic()
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - started
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {completed.stdout.strip()[-500:]}")
    return wall, completed.stdout


def pyperf_process_values(path: Path) -> list[list[float]]:
    """The values of each pyperf worker process (its runs), for perflab's estimators."""
    import pyperf

    benchmark = pyperf.Benchmark.load(str(path))
    return [list(run.values) for run in benchmark.get_runs() if run.values]


def quantiles(values: list[float]) -> dict[str, float]:
    """min / 5% / median / 95% / max, for describing distributions in the printed figure."""
    import numpy as np

    if not values:
        return {}
    q = np.percentile(values, [0, 5, 50, 95, 100])
    return dict(zip(("min", "p5", "median", "p95", "max"), (float(x) for x in q)))


def describe_decision(settings: dict[str, Any]) -> str:
    """How the runs decided, from the settings perflab recorded (``settings["perflab"]``)."""
    perflab = settings.get("perflab", {})
    return (
        f"verdict at FDR-adjusted p <= {perflab.get('alpha', '?')}, min-effect {perflab.get('min_effect', 0) * 100:g}%"
    )


def format_load(state: dict[str, Any]) -> str:
    return " ".join(f"{x:.2f}" for x in state["load_average"])


def machine_line(figure: dict[str, Any]) -> str:
    """The machine and the load average at a figure's start and end, on one line."""
    return (
        f"machine: {figure['machine']['cpu_model']}, {figure['machine']['cpu_count']} CPUs; load average "
        f"start {format_load(figure['start'])}, end {format_load(figure['end'])}"
    )


# Groups of trials by how far apart the two contenders' calibrated loop counts were (the
# contenders of these figures run at about the same speed, so their loop counts should match).
LOOPS_RATIO_GROUPS = ((1.0, 1.1), (1.1, 2.0), (2.0, math.inf))


def loops_ratio(trial: dict[str, Any]) -> float:
    loops = [n or 1 for n in trial["loops"].values()]
    return max(loops) / min(loops)


def by_loops_ratio(trials: list[dict[str, Any]], hit) -> list[dict[str, Any]]:
    """For each loops-ratio group: how many trials, and how many of them satisfy ``hit``."""
    groups = []
    for low, high in LOOPS_RATIO_GROUPS:
        group = [t for t in trials if low <= loops_ratio(t) < high]
        hits = sum(1 for t in group if hit(t))
        groups.append(
            {
                "loops_ratio": [low, high],
                "trials": len(group),
                "hits": hits,
                "rate_ci95_clopper_pearson": binomial_interval(hits, len(group)),
            }
        )
    return groups


def print_by_loops_ratio(groups: list[dict[str, Any]], what: str) -> None:
    print("  by how far apart the two contenders' calibrated loop counts (value durations) were:")
    for group in groups:
        low, high = group["loops_ratio"]
        ci = group["rate_ci95_clopper_pearson"]
        print(
            f"    loops ratio {low:g}-{high:g}: {group['hits']}/{group['trials']} {what} (95% CI {ci[0]:.0%}-{ci[1]:.0%})"
        )


def new_figure(name: str, settings: dict[str, Any], **more: Any) -> dict[str, Any]:
    """A figure's record as every script starts it: its name, the machine, the conditions at the start."""
    return {"figure": name, "machine": machine(), "start": conditions(), "settings": settings, **more}


def repeated_runs(benchmark: Path, contender: str, args, figure: dict[str, Any], summarize) -> None:
    """``args.trials`` runs of ``perflab run BENCHMARK`` with the script's timing options (stopping
    once ``args.budget`` is spent); each run's summary of ``contender`` goes into ``figure["trials"]``,
    and the figure is saved after every one."""
    for number in trial_numbers(args.trials, args.budget, figure):
        run = run_perflab(str(benchmark), benchmark.with_name("out.json"), *timing_options(args))
        summary = run.summary(contender)
        figure["trials"].append(summary)
        figure["settings"]["perflab"] = run.settings()
        print(trial_line(f"trial {number + 1:3d}", summary), flush=True)
        save_progress(args.name, figure, summarize)


def trial_line(label: str, summary: dict[str, Any]) -> str:
    """One run's verdict, ratio, precision, rounds, time and loop counts, as the trials print it."""
    low, high = summary["ratio_ci"]
    return (
        f"{label}: {summary['verdict']:<25} ratio {summary['ratio']:.4f} [{low:.4f}, {high:.4f}] "
        f"±{summary['ratio_precision']:.2%} in {summary['rounds']} rounds, {summary['wall_s']:.1f} s "
        f"(timing {summary['timing_s']:.1f} s); loops {'/'.join(str(n) for n in summary['loops'].values())}"
    )


def trial_numbers(count: int, budget: float | None, figure: dict[str, Any]) -> Iterator[int]:
    """0 .. count - 1, stopping early once ``budget`` seconds are spent (the figure says where)."""
    started = time.monotonic()
    for number in range(count):
        if budget is not None and time.monotonic() - started > budget:
            figure["stopped"] = f"budget of {budget:g} s spent after {number} trials"
            print(figure["stopped"], flush=True)
            return
        yield number


def save_progress(name: str, figure: dict[str, Any], summarize) -> Path:
    """Summarize and write the figure after every trial: a long run stopped early keeps its data
    (and the conditions at its last trial)."""
    figure["end"] = conditions()
    summarize(figure)
    return write_figure(name, figure)


def finish(name: str, figure: dict[str, Any], summarize, show) -> int:
    """The end of a figure run: conditions at the end, the summary written and printed."""
    path = save_progress(name, figure, summarize)
    show(figure)
    written(path)
    return 0


def report_again(name: str, summarize, show) -> int:
    """--report: measure nothing, summarize a saved figure again (its conditions as measured),
    write and print it."""
    figure = read_figure(name)
    summarize(figure)
    write_figure(name, figure)
    show(figure)
    return 0
