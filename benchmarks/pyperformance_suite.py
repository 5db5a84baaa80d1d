"""Figure: every benchmark of the installed pyperformance's MANIFEST, under perflab at a stated
budget and under pyperf ``--fast``: per benchmark, whether it ran (and why not), perflab's wall time
against its budget, and whether the two agree.

For each MANIFEST name, back to back:

1. ``perflab run pyperformance:NAME --max-time B --json out.json`` (the name resolved as
   pyperformance resolves it: its metadata file's script and extra options), timed from start to
   exit; "why not" is the last line perflab printed when it gave no number;
2. unless ``--perflab-only``: pyperf's runner on the same script and options with ``--fast -o
   out.json`` (what pyperformance runs), timed the same way.

Agreement, per case both timed: perflab's median inside the 95% interval perflab's estimator gives
over pyperf's processes, and pyperf's median inside perflab's interval. Wall times and agreement
need a quiet machine; "ran / why not" does not.

    python benchmarks/pyperformance_suite.py                               # the whole MANIFEST, budget 30 s
    python benchmarks/pyperformance_suite.py --perflab-only --max-time 10  # which run, and why not
    python benchmarks/pyperformance_suite.py --benchmarks pickle_dict,argparse
    python benchmarks/pyperformance_suite.py --quick                       # smoke run: one small benchmark
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _cli
from _common import PYPERF_SMOKE, finish, machine_line, new_figure, save_progress

from perflab import pyperformance_benchmarks
from perflab.analysis import estimates
from perflab.units import format_time

NAME = "pyperformance_suite"


def run_perflab(name: str, out: Path, budget: float, options: list[str]) -> dict:
    command = [sys.executable, "-m", "perflab", "run", f"pyperformance:{name}", *options, "--json", str(out)]
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=3 * budget + 120)
    except subprocess.TimeoutExpired:
        return {"wall_s": round(time.monotonic() - started, 1), "exit": None, "why_not": "killed: over 3x the budget"}
    wall = round(time.monotonic() - started, 1)
    cases = {}
    if out.exists():
        for cell in json.loads(out.read_text())["cells"]:
            median = cell["estimates"]["median"] if cell.get("estimates") else None
            if median and median.get("value"):
                cases[cell["case"]] = [median["value"], float(median["low"]), float(median["high"])]
        out.unlink()
    why = None if cases else (done.stderr.strip().splitlines() or ["no output"])[-1][:160]
    return {"wall_s": wall, "exit": done.returncode, "cases": cases, "why_not": why}


def run_pyperf(name: str, out: Path) -> dict:
    import pyperf

    command = [sys.executable, *pyperformance_benchmarks.pyperf_command(name), "--fast", "--quiet", "-o", str(out)]
    command += PYPERF_SMOKE if _cli.is_smoke() else []
    out.unlink(missing_ok=True)
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = round(time.monotonic() - started, 1)
    if done.returncode != 0 or not out.exists():
        return {
            "wall_s": wall,
            "exit": done.returncode,
            "why_not": (done.stderr.strip().splitlines() or ["?"])[-1][:160],
        }
    cases = {}
    for bench in pyperf.BenchmarkSuite.load(str(out)).get_benchmarks():
        median = estimates.estimate_cell([list(run.values) for run in bench.get_runs() if run.values]).median
        cases[bench.get_name()] = [median.value, median.low, median.high]
    return {"wall_s": wall, "exit": 0, "cases": cases, "why_not": None}


def agreement(perflab: dict, pyperf: dict | None) -> str:
    """'both' / 'one way' / 'no' over the cases both timed; '' when there is nothing to compare."""
    if not pyperf or not perflab.get("cases") or not pyperf.get("cases"):
        return ""
    said = []
    for case, (value, low, high) in perflab["cases"].items():
        if case in pyperf["cases"]:
            p_value, p_low, p_high = pyperf["cases"][case]
            said.append((p_low <= value <= p_high) + (low <= p_value <= high))
    if not said:
        return "no common case"
    return "both" if min(said) == 2 else "one way" if min(said) == 1 else "no"


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--benchmarks", help="comma-separated MANIFEST names (default: all of them)")
    arguments.add_argument("--max-time", type=float, default=30.0, help="perflab --max-time per benchmark (default 30)")
    arguments.add_argument("--perflab-only", action="store_true", help="do not run pyperf (ran / why not only)")
    args = _cli.parse(arguments, benchmarks="unpickle_list", max_time=10.0)
    names = [n.strip() for n in args.benchmarks.split(",")] if args.benchmarks else pyperformance_benchmarks.names()
    if not names:
        raise SystemExit("pyperformance is not installed: pip install pyperformance")
    smoke = (
        ["--values", "3", "--value-time", "0.002", "--debug-rounds", "1", "--warmup", "0"] if _cli.is_smoke() else []
    )
    options = ["--max-time", f"{args.max_time:g}", *smoke]
    settings = {
        "perflab_command": "perflab run pyperformance:NAME " + " ".join(options),
        "pyperf_command": None if args.perflab_only else "python SCRIPT EXTRA_OPTS --fast -o out.json",
        "budget_s": args.max_time,
    }
    figure = new_figure(NAME, settings, benchmarks={})
    with tempfile.TemporaryDirectory(prefix="perflab-pyperformance-") as directory:
        for name in names:
            perflab = run_perflab(name, Path(directory) / "perflab.json", args.max_time, options)
            pyperf = None if args.perflab_only else run_pyperf(name, Path(directory) / "pyperf.json")
            figure["benchmarks"][name] = {"perflab": perflab, "pyperf": pyperf, "agree": agreement(perflab, pyperf)}
            save_progress(NAME, figure, lambda f: None)
    return finish(NAME, figure, lambda f: None, show)


def show(figure: dict) -> None:
    settings = figure["settings"]
    print(f"{NAME}: {settings['perflab_command']}  vs  {settings['pyperf_command'] or '(pyperf not run)'}")
    print(machine_line(figure))
    budget = settings["budget_s"]
    benchmarks = figure["benchmarks"].values()
    ran = sum(1 for b in benchmarks if b["perflab"].get("cases"))
    whole = sum(1 for b in benchmarks if b["perflab"].get("cases") and not _without_interval(b["perflab"]))
    worst = max((b["perflab"]["wall_s"] / budget for b in benchmarks), default=0.0)
    print(
        f"perflab gave a number for {ran} of {len(figure['benchmarks'])} benchmarks (budget {budget:g} s), "
        f"every case with its interval for {whole}; the longest took {worst:.2f}x the budget"
    )
    for name, both in figure["benchmarks"].items():
        perflab, pyperf = both["perflab"], both["pyperf"]
        missing = _without_interval(perflab)
        status = (
            f"NOT RUN: {perflab['why_not']}"
            if not perflab.get("cases")
            else f"ran, no interval for {len(missing)} of {len(perflab['cases'])} case(s)"
            if missing
            else "ran"
        )
        line = f"  {name:34} {status[:110]:110}  {perflab['wall_s']:6.1f} s / {budget:g} s"
        if pyperf is not None:
            timed = "ran" if pyperf.get("cases") else f"NOT RUN: {pyperf['why_not'][:60]}"
            line += f"  pyperf --fast {timed} {pyperf['wall_s']:.1f} s  agree: {both['agree'] or '-'}"
        print(line)
        for case, (value, low, high) in (perflab.get("cases") or {}).items():
            if len(perflab["cases"]) > 1:
                print(f"      {case}: {format_time(value)} [{format_time(low)}, {format_time(high)}]")


def _without_interval(perflab: dict) -> list[str]:
    """The cases perflab timed without a finite interval (one process: fewer than two rounds)."""
    return [
        case
        for case, (_, low, high) in (perflab.get("cases") or {}).items()
        if not all(isinstance(bound, (int, float)) and math.isfinite(bound) for bound in (low, high))
    ]


if __name__ == "__main__":
    sys.exit(main())
