"""Figure: one unchanged asv suite timed by asv itself and by perflab, side by side.

Each trial runs, back to back in this session, on a copy of the suite in a scratch git repository:

1. ``asv run --python=same --record-samples --set-commit-hash HEAD`` (asv's defaults otherwise;
   ``--quick`` in a smoke run), then reads asv's results file through ``perflab import``'s reader
   (perflab.results.import_asv): per case, asv's median of its samples and perflab's interval
   estimator over them (asv's samples come from one interleaved sequence, so that interval does
   not cover what differs between processes);
2. ``perflab run SUITE --json out.json`` with the precision and budget given below.

Both are timed from start to exit. For every case the figure prints asv's median with asv's own
99% interval of it (its results' stats_ci_99_a/b), perflab's median with its 95% interval, whether
asv's median lies inside perflab's interval, and whether the two intervals overlap (asv's few
samples move its median more than perflab's interval is wide, so the overlap is the fairer test of
"within each other's intervals"); a wall-time figure, taken under load, is provisional.

    python benchmarks/asv_side_by_side.py                        # tests/data/asv_suite, 3 trials
    python benchmarks/asv_side_by_side.py --suite path/to/asv.conf.json
    python benchmarks/asv_side_by_side.py --bench 'TimeSuite|time_sorted'   # asv's -b, to both tools
    python benchmarks/asv_side_by_side.py --quick                # smoke run: asv --quick, two benchmarks, one trial
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _cli
from _common import conditions, finish, machine_line, new_figure, run_perflab, save_progress

from perflab.bench.asv_suite import case_name
from perflab.results.import_asv import load as load_asv_results
from perflab.units import format_time

NAME = "asv_side_by_side"
SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "asv_suite" / "asv.conf.json"


def run_asv(project: Path, quick: bool, bench: list[str]) -> tuple[float, dict[str, tuple[float, float, float]]]:
    """asv's own run of the suite in ``project``: (wall seconds, {case: asv's median and asv's own
    99% interval of it, from its results file})."""
    environment = {**os.environ, "HOME": str(project.parent)}  # asv's machine file, kept out of ~
    git = ["git", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "-c", "user.name=f", "-c", "user.email=f@x", "commit", "-qm", "suite"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    asv = [sys.executable, "-m", "asv"]
    subprocess.run([*asv, "machine", "--yes", "--machine", "figure"], cwd=project, env=environment, check=True)
    options = ["--python=same", "--record-samples", "--set-commit-hash", commit, "--machine", "figure"]
    started = time.perf_counter()
    subprocess.run([*asv, "run", *options, *bench, *(["--quick"] if quick else [])], cwd=project, env=environment)
    wall = time.perf_counter() - started
    (results,) = project.rglob(f"figure/{commit[:8]}-*.json")
    data = json.loads(results.read_text())
    run = load_asv_results(results, data, "asv")
    intervals = asv_intervals(data)
    return wall, {
        cell.case: (cell.estimates.median.value, *intervals.get(cell.case, (math.nan, math.nan)))
        for cell in run.cells
        if cell.estimates
    }


def asv_intervals(data: dict) -> dict[str, tuple[float, float]]:
    """asv's own 99% interval of each case's median (its results' stats_ci_99_a/b), by perflab's
    case names (perflab.bench.asv_suite.case_name, as perflab's importer names them)."""
    columns, found = data["result_columns"], {}
    for name, row in (data.get("results") or {}).items():
        entry = dict(zip(columns, row))
        lows, highs, ids = entry.get("stats_ci_99_a"), entry.get("stats_ci_99_b"), entry.get("params") or []
        if lows is None or highs is None:
            continue
        cases = [case_name(name, combination) for combination in itertools.product(*ids)] if ids else [name]
        lows, highs = (value if isinstance(value, list) else [value] for value in (lows, highs))
        for case, low, high in zip(cases, lows, highs):
            if isinstance(low, (int, float)) and isinstance(high, (int, float)):  # (a skipped case has none)
                found[case] = (float(low), float(high))
    return found


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--suite", default=str(SUITE), help="an asv.conf.json (default tests/data/asv_suite's)")
    arguments.add_argument("--bench", metavar="REGEX", help="only these benchmarks: -b REGEX to both tools")
    _cli.add_trials(arguments, 3, "asv/perflab repetitions")
    _cli.add_timing(arguments, 120.0)
    args = _cli.parse(arguments, trials=1, max_time=60.0, precision=50.0, bench="time_sum|timeraw_upper")
    suite = Path(args.suite).resolve()
    bench = ["-b", args.bench] if args.bench else []
    perflab_options = [*_cli.timing_options(args), *bench]
    settings = {
        "suite": str(suite),
        "trials": args.trials,
        "asv_command": " ".join(
            ["asv run --python=same --record-samples", *bench, *(["--quick"] if _cli.is_smoke() else [])]
        ),
        "perflab_command": "perflab run asv.conf.json --json out.json " + " ".join(perflab_options),
    }
    figure = new_figure(NAME, settings, trials=[])
    for trial in range(args.trials):
        with tempfile.TemporaryDirectory(prefix="perflab-asv-side-by-side-") as directory:
            project = Path(directory) / "project"
            shutil.copytree(suite.parent, project, ignore=shutil.ignore_patterns(".asv", ".git", "results"))
            asv_wall, asv_medians = run_asv(project, _cli.is_smoke(), bench)
            run = run_perflab(
                str(project / suite.name), Path(directory) / "perflab.json", *perflab_options, "--no-store"
            )
        cases = {}
        for cell in run.result["cells"]:
            if not cell["estimates"]:
                continue
            median = cell["estimates"]["median"]
            low, high = float(median["low"]), float(median["high"])
            asv, asv_low, asv_high = asv_medians.get(cell["case"], (None, math.nan, math.nan))
            finite = math.isfinite(low) and math.isfinite(high)  # a smoke run's 2 rounds give no interval
            both_finite = finite and math.isfinite(asv_low) and math.isfinite(asv_high)
            cases[cell["case"]] = {
                "asv_median": asv,
                "asv_ci": [asv_low, asv_high],
                "perflab_median": median["value"],
                "perflab_ci": [low, high],
                "asv_inside": (low <= asv <= high) if asv is not None and finite else None,
                "overlap": (low <= asv_high and asv_low <= high) if asv is not None and both_finite else None,
            }
        walls = {"asv_wall_s": round(asv_wall, 2), "perflab_wall_s": round(run.wall, 2)}
        load = conditions()["load_average"]
        figure["trials"].append(
            {"trial": trial, **walls, "perflab_exit": run.exit_code, "load_average": load, "cases": cases}
        )
        save_progress(NAME, figure, lambda f: None)
    return finish(NAME, figure, lambda f: None, show)


def show(figure: dict) -> None:
    print(f"{NAME}: {figure['settings']['asv_command']}  vs  {figure['settings']['perflab_command']}")
    print(f"suite {figure['settings']['suite']}; {machine_line(figure)}")
    for trial in figure["trials"]:
        judged = [case["asv_inside"] for case in trial["cases"].values() if case["asv_inside"] is not None]
        overlaps = [case.get("overlap") for case in trial["cases"].values() if case.get("overlap") is not None]
        ratios = [c["perflab_median"] / c["asv_median"] for c in trial["cases"].values() if c["asv_median"]]
        print(
            f"\ntrial {trial['trial'] + 1}: wall time asv {trial['asv_wall_s']:.1f} s, perflab "
            f"{trial['perflab_wall_s']:.1f} s; asv's median inside perflab's 95% interval for {sum(judged)} of "
            f"{len(judged)} cases with an interval; the two intervals overlap for {sum(overlaps)} of "
            f"{len(overlaps)}; perflab/asv medians {min(ratios, default=math.nan):.2f}-{max(ratios, default=math.nan):.2f}; "
            f"load {' '.join(f'{x:.2f}' for x in trial['load_average'])}"
        )
        for case, both in trial["cases"].items():
            low, high = both["perflab_ci"]
            asv = format_time(both["asv_median"]) if both["asv_median"] is not None else "not run"
            asv_low, asv_high = both.get("asv_ci", [math.nan, math.nan])
            asv_ci = f" [{format_time(asv_low)}, {format_time(asv_high)}]" if math.isfinite(asv_low) else ""
            print(
                f"  {case}: asv {asv}{asv_ci}; perflab {format_time(both['perflab_median'])} "
                f"[{format_time(low)}, {format_time(high)}]{'  (asv outside)' if both['asv_inside'] is False else ''}"
                f"{'  (intervals apart)' if both.get('overlap') is False else ''}"
            )


if __name__ == "__main__":
    sys.exit(main())
