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
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from scipy import stats as scipy_stats

from perflab.analysis import estimates
from perflab.measure.metadata import git_info, machine_info

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PYPERF_SCRIPT = HERE / "_pyperf_json_dumps.py"
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
    """Exact (Clopper-Pearson) 95% interval of a rate: conservative, valid at 0 and n."""
    if trials == 0:
        return [0.0, 1.0]
    ci = scipy_stats.binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="exact")
    return [ci.low, ci.high]


@dataclass
class PerflabRun:
    """One ``perflab run ... --json`` subprocess: its wall time and the results it wrote."""

    wall: float
    exit_code: int
    result: dict[str, Any]

    def comparison(self, contender: str) -> dict[str, Any]:
        return next(c for c in self.result["comparisons"] if c["contender"] == contender)

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
    """``perflab run BENCHMARK --json OUT OPTIONS`` (no BENCHMARK: ``--command`` options); the
    table it prints is discarded."""
    command = [
        sys.executable,
        "-m",
        "perflab",
        "run",
        *([benchmark] if benchmark else []),
        "--json",
        str(out),
        *options,
    ]
    started = time.monotonic()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if not out.exists():
        raise RuntimeError(
            f"{' '.join(command)} wrote no results (exit {completed.returncode}): {completed.stderr.strip()[-500:]}"
        )
    return PerflabRun(wall, completed.returncode, json.loads(out.read_text()))


def run_pyperf(function: str, out: Path, name: str | None = None) -> tuple[float, str]:
    """pyperf at its default settings on one json.dumps-like function; (wall time, its output)."""
    out.unlink(missing_ok=True)
    command = [
        sys.executable,
        str(PYPERF_SCRIPT),
        "--function",
        function,
        "--name",
        name or function,
        "-o",
        str(out),
        "--quiet",
    ]
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


def write_figure(name: str, figure: dict[str, Any]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(_finite(figure), indent=1) + "\n")
    return path


def _finite(value: Any) -> Any:
    """JSON has no infinities (an interval that never closed): write them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


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


def save_progress(name: str, figure: dict[str, Any], summarize) -> None:
    """Summarize and write the figure after every trial: a long run stopped early keeps its data."""
    summarize(figure)
    write_figure(name, figure)


def finish(name: str, figure: dict[str, Any], summarize, show) -> int:
    """The end of a figure run: conditions at the end, the summary written and printed."""
    figure["end"] = conditions()
    save_progress(name, figure, summarize)
    show(figure)
    return 0


def report_again(name: str, summarize, show) -> int:
    """--report: measure nothing, summarize a saved figure again and print it."""
    figure = json.loads((RESULTS / f"{name}.json").read_text())
    save_progress(name, figure, summarize)
    show(figure)
    return 0
