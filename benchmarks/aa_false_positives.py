"""Figure: the A/A false-positive rate of ``perflab run`` at its default settings.

The same function (json.dumps of pyperformance's NESTED object) is registered twice, as contenders
A and B, and ``perflab run FILE --json out.json`` compares them ``--trials`` times. Any verdict
other than "no detectable difference" is a false positive. Printed and written to
benchmarks/results/aa_false_positives.json: the rate with an exact (Clopper-Pearson) 95% interval,
the distribution of ratios and of the precision reached, and, for comparison, pyperf's verdict
(``pyperf compare_to``) on ``--pyperf-pairs`` A/A pairs at pyperf's default settings.

    python benchmarks/aa_false_positives.py                        # 100 trials, perflab defaults
    python benchmarks/aa_false_positives.py --trials 3 --max-time 10 --pyperf-pairs 0   # smoke run

Target: <= 1% of trials declare a difference.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    BENCHMARK_FILE_HEADER,
    binomial_interval,
    by_loops_ratio,
    conditions,
    describe_decision,
    finish,
    format_load,
    machine,
    print_by_loops_ratio,
    quantiles,
    report_again,
    run_perflab,
    run_pyperf,
    save_progress,
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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100, help="A/A comparisons to run (default 100)")
    parser.add_argument("--max-time", type=float, default=60.0, help="perflab --max-time per trial (default 60)")
    parser.add_argument("--precision", type=float, default=1.0, help="perflab --precision in percent (default 1)")
    parser.add_argument(
        "--pyperf-pairs",
        type=int,
        default=2,
        help="A/A pairs also measured with pyperf at its defaults (default 2; 0 skips)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="start no new trial after this many seconds (the figure says how many ran)",
    )
    parser.add_argument(
        "--name",
        default=NAME,
        help=f"write benchmarks/results/NAME.json (default {NAME}; e.g. to keep a run of another commit)",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="measure nothing: summarize and print benchmarks/results/aa_false_positives.json again",
    )
    args = parser.parse_args()
    if args.report:
        return report_again(args.name, _summarize, _print)

    figure = {
        "figure": NAME,
        "machine": machine(),
        "start": conditions(),
        "settings": {
            "trials_requested": args.trials,
            "max_time": args.max_time,
            "precision_percent": args.precision,
            "command": f"perflab run aa.py --json out.json --max-time {args.max_time:g} --precision {args.precision:g}",
        },
        "benchmark_file": AA_BENCHMARK,
        "trials": [],
        "pyperf": [],
    }
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="perflab-aa-") as directory:
        path = Path(directory) / "aa.py"
        path.write_text(AA_BENCHMARK)
        for trial in range(args.trials):
            if args.budget is not None and time.monotonic() - started > args.budget:
                print(f"budget of {args.budget:g} s spent: stopping after {trial} trials", flush=True)
                break
            run = run_perflab(
                str(path),
                Path(directory) / "out.json",
                "--max-time",
                str(args.max_time),
                "--precision",
                str(args.precision),
            )
            summary = run.summary("B")
            figure["trials"].append(summary)
            figure["settings"]["perflab"] = run.settings()
            print(
                f"trial {trial + 1:3d}: {summary['verdict']:<25} ratio {summary['ratio']:.4f} "
                f"[{summary['ratio_ci'][0]:.4f}, {summary['ratio_ci'][1]:.4f}] "
                f"±{summary['ratio_precision'] * 100:.2f}% in {summary['rounds']} rounds, "
                f"{summary['wall_s']:.1f} s; loops A/B {summary['loops']['A']}/{summary['loops']['B']}",
                flush=True,
            )
            save_progress(args.name, figure, _summarize)  # after every trial: a long run stopped early keeps its data
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
        "verdicts": {v: sum(t["verdict"] == v for t in trials) for v in {t["verdict"] for t in trials}},
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
