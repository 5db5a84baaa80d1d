"""Figure: wall time to a 1% 95% CI half-width, perflab vs pyperf, on json.dumps(NESTED) and orjson.

Each repetition runs, back to back in this session:

1. ``perflab run json_dumps --case NESTED --contender orjson --json out.json`` (defaults: precision
   1%, max-time 60 s), timed from start to exit (equivalence check and process start-up included);
2. pyperf at its default settings (20 processes x 3 values of >= 100 ms, 1 warmup each) on the
   same two functions, one ``Runner.bench_func`` script per function (benchmarks/_pyperf_json_dumps.py,
   ``-o file``), timed the same way; pyperf's wall time is the sum of the two.

Precision is computed the same way for both, with perflab's estimators: the per-function median's
95% interval is perflab.analysis.estimates.estimate_cell over the processes' values (pyperf's runs are processes
too). The two differ in what their design lets them measure: perflab's stopping rule watches the
*ratio* orjson/json_stdlib, measured in interleaved rounds (paired; perflab.measure.runner._case_precisions),
while pyperf measures each function on its own, so its ratio interval can only combine the two
independent medians (delta method on the log ratio: half-widths added in quadrature). Both the ratio
precision and the per-function median precisions are reported.

    python benchmarks/time_to_precision.py                  # 5 repetitions
    python benchmarks/time_to_precision.py --quick          # smoke run: 1 repetition, tiny pyperf

Target: perflab's wall time at most a third of pyperf's, at equal or better precision.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

import _cli
from _common import (
    finish,
    format_load,
    new_figure,
    pyperf_process_values,
    run_perflab,
    run_pyperf,
    save_progress,
)

from perflab.analysis import estimates

NAME = "time_to_precision"
FUNCTIONS = ("json_stdlib", "orjson")


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 5, "interleaved perflab/pyperf repetitions")
    _cli.add_timing(arguments, 60.0)
    _cli.add_name(arguments, NAME)
    args = _cli.parse(arguments, trials=1, max_time=20.0, precision=50.0)

    settings = {
        "trials": args.trials,
        "perflab_command": "perflab run json_dumps --case NESTED --contender orjson --json out.json "
        + " ".join(_cli.timing_options(args)),
        "pyperf_command": "python benchmarks/_pyperf_json_dumps.py --function F -o F.json "
        "(pyperf defaults), for F in json_stdlib, orjson",
    }
    figure = new_figure(NAME, settings, trials=[])
    with tempfile.TemporaryDirectory(prefix="perflab-ttp-") as directory:
        directory = Path(directory)
        for trial in range(args.trials):
            perflab = _perflab(directory, args)
            pyperf = _pyperf(directory)
            figure["trials"].append({"perflab": perflab, "pyperf": pyperf})
            print(
                f"repetition {trial + 1}: perflab {perflab['wall_s']:.1f} s, ratio ±{perflab['ratio_precision']:.2%}, "
                f"medians ±{_medians(perflab)} | pyperf {pyperf['wall_s']:.1f} s, ratio ±{pyperf['ratio_precision']:.2%}, "
                f"medians ±{_medians(pyperf)}",
                flush=True,
            )
            save_progress(args.name, figure, _summarize)
    return finish(args.name, figure, _summarize, _print)


def _perflab(directory: Path, args: argparse.Namespace) -> dict:
    run = run_perflab(
        "json_dumps",
        directory / "perflab.json",
        "--case",
        "NESTED",
        "--contender",
        "orjson",
        *_cli.timing_options(args),
    )
    summary = run.summary("orjson")
    summary["median_s"] = {c["contender"]: c["estimates"]["median"]["value"] for c in run.result["cells"]}
    return summary


def _pyperf(directory: Path) -> dict:
    walls, medians, precisions, processes = {}, {}, {}, {}
    for function in FUNCTIONS:
        out = directory / f"{function}.json"
        walls[function], _ = run_pyperf(function, out)
        cell = estimates.estimate_cell(pyperf_process_values(out))
        medians[function] = cell.median.value
        precisions[function] = cell.median.relative_half_width
        processes[function] = cell.processes
    ratio = medians["orjson"] / medians["json_stdlib"]
    return {
        "wall_s": round(sum(walls.values()), 3),
        "wall_per_function_s": walls,
        "ratio": ratio,
        "ratio_precision": _quadrature(precisions.values()),
        "median_precision": precisions,
        "median_s": medians,
        "processes": processes,
    }


def _quadrature(relative_half_widths) -> float:
    """Relative half-width of a ratio of two independent estimates (delta method on the log)."""
    return math.sqrt(sum(h * h for h in relative_half_widths))


def _medians(side: dict) -> str:
    return "/".join(f"{side['median_precision'][f]:.2%}" for f in FUNCTIONS)


def _summarize(figure: dict) -> None:
    trials = figure["trials"]

    def median_of(tool: str, pick) -> float:
        return statistics.median(pick(t[tool]) for t in trials)

    summary = {}
    for tool in ("perflab", "pyperf"):
        summary[tool] = {
            "wall_s_median": median_of(tool, lambda s: s["wall_s"]),
            "wall_s_all": [t[tool]["wall_s"] for t in trials],
            "ratio_median": median_of(tool, lambda s: s["ratio"]),
            "ratio_precision_median": median_of(tool, lambda s: s["ratio_precision"]),
            "median_precision_median": {f: median_of(tool, lambda s, f=f: s["median_precision"][f]) for f in FUNCTIONS},
            "ratio_precision_within_1pct": sum(t[tool]["ratio_precision"] <= 0.01 for t in trials),
        }
    perflab, pyperf = summary["perflab"], summary["pyperf"]
    summary["wall_time_fraction"] = perflab["wall_s_median"] / pyperf["wall_s_median"]
    summary["target"] = "perflab wall time <= 1/3 of pyperf's at equal or better precision"
    summary["ratio_precision_at_least_as_good"] = perflab["ratio_precision_median"] <= pyperf["ratio_precision_median"]
    summary["median_precision_at_least_as_good"] = all(
        perflab["median_precision_median"][f] <= pyperf["median_precision_median"][f] for f in FUNCTIONS
    )
    summary["target_met_on_ratio"] = (
        summary["wall_time_fraction"] <= 1 / 3 and summary["ratio_precision_at_least_as_good"]
    )
    summary["target_met_on_medians"] = (
        summary["wall_time_fraction"] <= 1 / 3 and summary["median_precision_at_least_as_good"]
    )
    figure["summary"] = summary


def _print(figure: dict) -> None:
    s = figure["summary"]
    print()
    print(
        f"Time to precision: json.dumps(NESTED) json_stdlib vs orjson, perflab and pyperf interleaved, "
        f"{len(figure['trials'])} repetitions"
    )
    print(
        f"  machine {figure['machine']['cpu_model']}, {figure['machine']['cpu_count']} CPUs, shared; "
        f"load average start {format_load(figure['start'])}, end {format_load(figure['end'])}"
    )
    print(f"  perflab: {figure['settings']['perflab_command']}")
    print(f"  pyperf:  {figure['settings']['pyperf_command']}")
    print(
        f"  {'':8} {'wall s (median)':>16} {'ratio orjson/stdlib':>20} {'ratio ±95%':>11} "
        f"{'median ±95% stdlib':>19} {'orjson':>8}"
    )
    for tool in ("perflab", "pyperf"):
        t = s[tool]
        print(
            f"  {tool:8} {t['wall_s_median']:16.1f} {t['ratio_median']:20.4f} {t['ratio_precision_median']:10.2%} "
            f"{t['median_precision_median']['json_stdlib']:19.2%} {t['median_precision_median']['orjson']:8.2%}"
        )
    print(f"  all wall times: perflab {s['perflab']['wall_s_all']}, pyperf {s['pyperf']['wall_s_all']}")
    print(
        f"  perflab/pyperf wall time: {s['wall_time_fraction']:.2f} (target <= 0.33); ratio precision "
        f"{'at least as good' if s['ratio_precision_at_least_as_good'] else 'WORSE'}, per-function median "
        f"precision {'at least as good' if s['median_precision_at_least_as_good'] else 'WORSE'}"
    )
    print(
        f"  target met on the ratio: {'yes' if s['target_met_on_ratio'] else 'NO'}; "
        f"on per-function medians: {'yes' if s['target_met_on_medians'] else 'NO'}"
    )
    print(
        "  (perflab's stopping rule targets the ratio, measured paired in interleaved rounds; pyperf measures "
        "each function alone, so its ratio interval combines two independent medians)"
    )


if __name__ == "__main__":
    sys.exit(main())
