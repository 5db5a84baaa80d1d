"""Figure: the same unchanged pyperformance script timed by pyperf itself and by perflab, side by side.

Each repetition runs, back to back in this session, for every benchmark named:

1. pyperf's own runner on pyperformance's ``bm_NAME/run_benchmark.py`` at its default settings
   (20 worker processes x 1 warmup + 3 values; ``--fast`` halves that) with ``-o out.json``;
2. ``perflab run pyperformance:NAME --json out.json`` (perflab's Runner-compatible object inside
   perflab's workers; precision and budget as given below).

Both are timed from start to exit. For every sub-benchmark (a case, for perflab) the figure prints
pyperf's own summary (mean +- standard deviation, what ``pyperf`` prints), the median of pyperf's
values with a 95% interval computed by perflab's estimator over pyperf's processes (the same
estimator perflab uses for its own values, so the two intervals are comparable), and perflab's
median with its 95% interval.

    python benchmarks/pyperf_scripts.py                                   # json_dumps, logging, crypto_pyaes
    python benchmarks/pyperf_scripts.py --quick                           # smoke run: json_dumps once, tiny
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

import _cli
from _common import conditions, finish, machine_line, new_figure, run_perflab, run_pyperf_runner, save_progress

from perflab import pyperformance_benchmarks
from perflab.analysis import estimates
from perflab.units import format_time

NAME = "pyperf_scripts"


def run_pyperf_script(script: list[str], out: Path, fast: bool) -> tuple[float, dict[str, list[list[float]]]]:
    """pyperf's runner on the script (its path and options): (wall seconds, {benchmark: values of each worker process})."""
    import pyperf

    wall, _ = run_pyperf_runner(script, out, *(["--fast"] if fast else []))
    suite = pyperf.BenchmarkSuite.load(str(out))
    return wall, {
        bench.get_name(): [list(run.values) for run in bench.get_runs() if run.values]
        for bench in suite.get_benchmarks()
    }


def summarize_processes(processes: list[list[float]]) -> dict:
    values = [v for process in processes for v in process]
    median = estimates.estimate_cell(processes).median
    return {
        "processes": len(processes),
        "values": len(values),
        "mean": statistics.mean(values),
        "stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
        "median": median.value,
        "median_ci": [median.low, median.high],
    }


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument(
        "--benchmarks",
        default="json_dumps,logging,crypto_pyaes",
        help="comma-separated pyperformance benchmarks (default json_dumps,logging,crypto_pyaes)",
    )
    _cli.add_trials(arguments, 3, "interleaved pyperf/perflab repetitions")
    arguments.add_argument("--fast", action="store_true", help="pyperf --fast (10 processes instead of 20)")
    _cli.add_timing(arguments, 60.0)
    args = _cli.parse(arguments, benchmarks="json_dumps", trials=1, max_time=20.0, precision=50.0)
    names = [name.strip() for name in args.benchmarks.split(",") if name.strip()]
    scripts = {name: pyperformance_benchmarks.pyperf_command(name) for name in names}
    perflab_options = _cli.timing_options(args)
    settings = {
        "trials": args.trials,
        "pyperf_command": f"python run_benchmark.py -o out.json"
        f"{' --fast' if args.fast else ''} (pyperf defaults otherwise)",
        "perflab_command": "perflab run pyperformance:NAME --json out.json " + " ".join(perflab_options),
    }
    figure = new_figure(NAME, settings, trials=[])
    with tempfile.TemporaryDirectory(prefix="perflab-pyperf-scripts-") as directory:
        for trial in range(args.trials):
            for name, script in scripts.items():
                pyperf_wall, pyperf_values = run_pyperf_script(script, Path(directory) / "pyperf.json", args.fast)
                run = run_perflab(f"pyperformance:{name}", Path(directory) / "perflab.json", *perflab_options)
                cases = {}
                for cell in run.result["cells"]:
                    median = cell["estimates"]["median"]
                    cases[cell["case"]] = {
                        "pyperf": summarize_processes(pyperf_values[cell["case"]]),
                        "perflab": {
                            "median": median["value"],
                            "median_ci": [float(median["low"]), float(median["high"])],
                            "processes": cell["estimates"]["processes"],
                        },
                    }
                figure["trials"].append(
                    {
                        "trial": trial,
                        "benchmark": name,
                        "pyperf_wall_s": round(pyperf_wall, 2),
                        "perflab_wall_s": round(run.wall, 2),
                        "perflab_exit": run.exit_code,
                        "load_average": conditions()["load_average"],
                        "cases": cases,
                    }
                )
                save_progress(NAME, figure, lambda f: None)
    return finish(NAME, figure, lambda f: None, show)


def show(figure: dict) -> None:
    print(f"{NAME}: {figure['settings']['pyperf_command']}  vs  {figure['settings']['perflab_command']}")
    print(machine_line(figure))
    for trial in figure["trials"]:
        print(
            f"\n{trial['benchmark']} (trial {trial['trial'] + 1}): wall time pyperf {trial['pyperf_wall_s']:.1f} s, "
            f"perflab {trial['perflab_wall_s']:.1f} s; load {' '.join(f'{x:.2f}' for x in trial['load_average'])}"
        )
        for case, both in trial["cases"].items():
            pyperf, perflab = both["pyperf"], both["perflab"]
            print(
                f"  {case}: pyperf {format_time(pyperf['mean'])} +- {format_time(pyperf['stdev'])} (mean +- std dev); "
                f"median {_with_ci(pyperf)} over {pyperf['processes']} processes"
            )
            print(f"  {' ' * len(case)}  perflab median {_with_ci(perflab)} over {perflab['processes']} processes")


def _with_ci(summary: dict) -> str:
    low, high = summary["median_ci"]
    return f"{format_time(summary['median'])} [95% CI {format_time(low)}, {format_time(high)}]"


if __name__ == "__main__":
    sys.exit(main())
