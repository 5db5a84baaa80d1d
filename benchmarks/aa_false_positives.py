"""Figure: the A/A false-positive rate of ``perflab run`` at its default settings.

The same function (json.dumps of pyperformance's NESTED object) is registered twice, as contenders
A and B, and ``perflab run FILE --json out.json`` compares them ``--trials`` times. Any verdict
other than "no detectable difference" is a false positive. Printed and written to
benchmarks/results/aa_false_positives.json: the rate with an exact (Clopper-Pearson) 95% interval,
the distribution of ratios and of the precision reached, and, for comparison, pyperf's verdict
(``pyperf compare_to``) on ``--pyperf-pairs`` A/A pairs at pyperf's default settings.

    python benchmarks/aa_false_positives.py                        # 100 trials, perflab defaults
    python benchmarks/aa_false_positives.py --quick                # smoke run: 1 trial, 1 tiny pyperf pair

Target: <= 1% of trials declare a difference.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import _cli
from _common import (
    BENCHMARK_FILE_HEADER,
    binomial_interval,
    by_loops_ratio,
    describe_decision,
    finish,
    format_load,
    new_figure,
    print_by_loops_ratio,
    quantiles,
    repeated_runs,
    report_again,
    run_pyperf,
    verdict_counts,
)

NAME = "aa_false_positives"
NO_DIFFERENCE = "no detectable difference"
TARGET_RATE = 0.01

AA_BENCHMARK = (
    BENCHMARK_FILE_HEADER
    + """
bench = perflab.Benchmark("aa", description="A/A: one function registered twice", compare="exact")


@bench.case
def NESTED():
    return dict(NESTED_DATA)


def dumps(obj):
    return json.dumps(obj)


bench.contender(dumps, name="A")
bench.contender(dumps, name="B")
"""
)


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 100, "A/A comparisons to run")
    _cli.add_timing(arguments, 60.0)
    arguments.add_argument(
        "--pyperf-pairs",
        type=int,
        default=2,
        help="A/A pairs also measured with pyperf at its defaults (default 2; 0 skips)",
    )
    _cli.add_budget(arguments)
    _cli.add_name(arguments, NAME)
    _cli.add_report(arguments)
    args = _cli.parse(arguments, trials=1, max_time=20.0, precision=50.0, pyperf_pairs=1)
    if args.report:
        return report_again(args.name, _summarize, _print)

    settings = {
        "trials_requested": args.trials,
        "max_time": args.max_time,
        "precision_percent": args.precision,
        "command": f"perflab run aa.py --json out.json {' '.join(_cli.timing_options(args))}",
    }
    figure = new_figure(NAME, settings, benchmark_file=AA_BENCHMARK, trials=[], pyperf=[])
    with tempfile.TemporaryDirectory(prefix="perflab-aa-") as directory:
        path = Path(directory) / "aa.py"
        path.write_text(AA_BENCHMARK)
        repeated_runs(path, "B", args, figure, _summarize)
        for pair in range(args.pyperf_pairs):
            figure["pyperf"].append(_pyperf_pair(Path(directory)))
            print(f"pyperf pair {pair + 1}: {figure['pyperf'][-1]['compare_to']}", flush=True)
    return finish(args.name, figure, _summarize, _print)


def _pyperf_pair(directory: Path) -> dict:
    """pyperf's own A/A test: the same function benchmarked twice, then ``pyperf compare_to``."""
    wall_a, _ = run_pyperf("json_stdlib", directory / "A.json", name="json_dumps_nested")
    wall_b, _ = run_pyperf("json_stdlib", directory / "B.json", name="json_dumps_nested")
    compared = subprocess.run(
        [sys.executable, "-m", "pyperf", "compare_to", str(directory / "A.json"), str(directory / "B.json")],
        capture_output=True,
        text=True,
    )
    output = compared.stdout.strip()
    return {
        "wall_s": [round(wall_a, 2), round(wall_b, 2)],
        "compare_to": output,
        "significant": "not significant" not in output.lower(),
    }


def _summarize(figure: dict) -> None:
    trials = figure["trials"]
    positives = [t for t in trials if t["verdict"] != NO_DIFFERENCE]
    rate = len(positives) / len(trials) if trials else 0.0
    low, high = binomial_interval(len(positives), len(trials))
    figure["summary"] = {
        "trials": len(trials),
        "differences_declared": len(positives),
        "false_positive_rate": rate,
        "rate_ci95_clopper_pearson": [low, high],
        "verdicts": verdict_counts(trials),
        "target": f"<= {TARGET_RATE:.0%}",
        "target_met": rate <= TARGET_RATE,
        "target_met_with_confidence": high <= TARGET_RATE,
        "precision_target_reached": sum(t["target_reached"] for t in trials),
        "ratio": quantiles([t["ratio"] for t in trials]),
        "ratio_precision": quantiles([t["ratio_precision"] for t in trials]),
        "wall_s": quantiles([t["wall_s"] for t in trials]),
        "rounds": quantiles([t["rounds"] for t in trials]),
        # Calibration is per contender; identical functions should get about the same loop count
        # (values of equal duration). Declared differences by how far apart the loop counts were:
        "by_loops_ratio": by_loops_ratio(trials, lambda t: t["verdict"] != NO_DIFFERENCE),
        "pyperf_pairs": len(figure["pyperf"]),
        "pyperf_significant": sum(p["significant"] for p in figure["pyperf"]),
    }


def _print(figure: dict) -> None:
    s, settings = figure["summary"], figure["settings"]
    print()
    print(f"A/A false positives: perflab run, the same function as contenders A and B, {s['trials']} trials")
    print(
        f"  settings: --precision {settings['precision_percent']:g}% --max-time {settings['max_time']:g} s "
        f"({describe_decision(settings)}); machine {figure['machine']['cpu_model']}, "
        f"{figure['machine']['cpu_count']} CPUs, shared"
    )
    print(f"  load average start {format_load(figure['start'])}, end {format_load(figure['end'])}")
    low, high = s["rate_ci95_clopper_pearson"]
    print(
        f"  difference declared: {s['differences_declared']}/{s['trials']} = {s['false_positive_rate']:.1%} "
        f"(95% CI {low:.1%}-{high:.1%}); target {s['target']}: "
        f"{'met' if s['target_met'] else 'NOT met'}"
    )
    print(f"  verdicts: {s['verdicts']}")
    r, p, w = s["ratio"], s["ratio_precision"], s["wall_s"]
    if r:
        print(
            f"  ratio B/A: median {r['median']:.4f}, 5-95% {r['p5']:.4f}-{r['p95']:.4f}, "
            f"range {r['min']:.4f}-{r['max']:.4f}"
        )
        print(
            f"  ratio precision reached: median ±{p['median']:.2%}, 95th percentile ±{p['p95']:.2%}; "
            f"1% target reached in {s['precision_target_reached']}/{s['trials']}"
        )
        print(f"  wall time per trial: median {w['median']:.1f} s, max {w['max']:.1f} s")
        print_by_loops_ratio(s["by_loops_ratio"], "declared a difference")
    if figure["pyperf"]:
        print(
            f"  pyperf (default settings, compare_to): {s['pyperf_significant']}/{s['pyperf_pairs']} "
            "A/A pairs flagged significant"
        )
        for pair in figure["pyperf"]:
            print("    " + pair["compare_to"].replace("\n", "\n    "))


if __name__ == "__main__":
    sys.exit(main())
