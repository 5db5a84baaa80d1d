"""Figure: the power of ``perflab run`` to detect a 5% slowdown within its default 60 s budget.

The reference contender is json.dumps of pyperformance's NESTED object; the other contender does
the same call plus a busy loop (``for _ in range(N): pass``) whose iteration count N is calibrated
once, before the trials, so that it adds ``--slowdown`` (5%) to the call. The calibration times
both functions alternately in this process (minimum over many short batches); the slowdown the
trials then actually see is reported too (the median ratio over all trials). ``perflab run FILE --json
out.json --max-time 60`` runs ``--trials`` times; a trial detects the slowdown when its verdict is
"slower". Printed and written to benchmarks/results/power.json: the detection rate with an exact
(Clopper-Pearson) 95% interval, the time to the verdict and the measured ratios.

    python benchmarks/power.py                       # 25 trials at perflab's defaults
    python benchmarks/power.py --quick               # smoke run: 1 trial

Target: "slower" in >= 80% of trials, each within 60 s.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import _cli
from _common import (
    BENCHMARK_FILE_HEADER,
    LOOPS_RATIO_GROUPS,
    binomial_interval,
    by_loops_ratio,
    describe_decision,
    finish,
    format_load,
    injected_work,
    loops_ratio,
    min_batch_slowdown,
    new_figure,
    print_by_loops_ratio,
    quantiles,
    repeated_runs,
    report_again,
    verdict_counts,
)

NAME = "power"
SLOWER = "slower"
TARGET_RATE = 0.80

POWER_BENCHMARK = (
    BENCHMARK_FILE_HEADER
    + """
BUSY_ITERATIONS = @ITERATIONS@  # calibrated by benchmarks/power.py to add @SLOWDOWN@ to a call

bench = perflab.Benchmark("power", description="json.dumps vs json.dumps + calibrated busy work",
                          compare="exact")


@bench.case
def NESTED():
    return dict(NESTED_DATA)


@bench.contender
def json_stdlib(obj):
    return json.dumps(obj)


@bench.contender
def slower(obj):
    output = json.dumps(obj)
    for _ in range(BUSY_ITERATIONS):
        pass
    return output
"""
)


def benchmark_source(iterations: int, slowdown: float) -> str:
    return POWER_BENCHMARK.replace("@ITERATIONS@", str(iterations)).replace("@SLOWDOWN@", f"{slowdown:.1%}")


def measured_slowdown(iterations: int, over_empty_loop: bool = False) -> float:
    """The slowdown ``iterations`` busy-loop iterations add to json.dumps(NESTED), in this process
    (_common.min_batch_slowdown). The functions come from the very source the trials run, so the
    calibration times the same code. The reference is json.dumps alone, or (``over_empty_loop``)
    json.dumps with the busy loop at 0 iterations: mylib's pad() (benchmarks/compare_revisions.py)
    runs in the base revision too, so there only the iterations are injected, not the loop's own
    cost (~3% of a call here)."""
    bench = _benchmark(iterations)
    slow = bench.contenders[SLOWER].function
    reference = (
        _benchmark(0).contenders[SLOWER].function if over_empty_loop else bench.contenders["json_stdlib"].function
    )
    argument = bench.cases["NESTED"].build()
    return min_batch_slowdown((reference, argument), (slow, argument))


def _benchmark(iterations: int):
    """The benchmark of the very source the trials run, with ``iterations``."""
    namespace: dict = {}
    exec(compile(benchmark_source(iterations, 0.0), "<power benchmark>", "exec"), namespace)
    return namespace["bench"]


def injected_slowdown(percent: float, iterations: int | None, over_empty_loop: bool = False) -> dict:
    """The busy-loop size that adds ``percent`` to json.dumps(NESTED) (``iterations``: given, only
    checked), as the figures that inject a slowdown record it; ``over_empty_loop`` for mylib's
    revisions, whose base already runs the loop at 0 iterations (see measured_slowdown)."""
    found = injected_work(
        percent,
        lambda count: measured_slowdown(count, over_empty_loop),
        iterations,
        probe=200,
        script="power.py",
        zero_at_zero=over_empty_loop,
    )
    print(
        f"calibrated: {found['iterations']} busy-loop iterations add {found['slowdown_at_calibration']:.2%} "
        "to json.dumps(NESTED)",
        flush=True,
    )
    against = "the busy loop at 0 iterations (the base revision runs it too)" if over_empty_loop else "json.dumps alone"
    return {"busy_iterations": found.pop("iterations"), **found, "method": f"{found['method']}; against {against}"}


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 25, "comparisons to run")
    _cli.add_timing(arguments, 60.0)
    _cli.add_slowdown(arguments, 5.0, iterations=True)
    _cli.add_budget(arguments)
    _cli.add_name(arguments, NAME)
    _cli.add_report(arguments)
    args = _cli.parse(arguments, trials=1, max_time=20.0, precision=50.0)
    if args.report:
        return report_again(args.name, _summarize, _print)

    settings = {
        "trials": args.trials,
        "max_time": args.max_time,
        "precision_percent": args.precision,
        "slowdown_target_percent": args.slowdown,
        "command": f"perflab run power.py --json out.json {' '.join(_cli.timing_options(args))}",
    }
    figure = new_figure(NAME, settings, calibration=injected_slowdown(args.slowdown, args.iterations), trials=[])
    calibration = figure["calibration"]
    figure["benchmark_file"] = benchmark_source(calibration["busy_iterations"], calibration["slowdown_at_calibration"])
    with tempfile.TemporaryDirectory(prefix="perflab-power-") as directory:
        path = Path(directory) / "power.py"
        path.write_text(figure["benchmark_file"])
        repeated_runs(path, "slower", args, figure, _summarize)
    return finish(args.name, figure, _summarize, _print)


def _summarize(figure: dict) -> None:
    trials = figure["trials"]
    detected = [t for t in trials if t["verdict"] == SLOWER]
    rate = len(detected) / len(trials) if trials else 0.0
    max_time = figure["settings"]["max_time"]
    figure["summary"] = {
        "trials": len(trials),
        "detected_slower": len(detected),
        "detection_rate": rate,
        "rate_ci95_clopper_pearson": binomial_interval(len(detected), len(trials)),
        "verdicts": verdict_counts(trials),
        "target": f">= {TARGET_RATE:.0%} detected within {max_time:g} s",
        "target_met": rate >= TARGET_RATE,
        "measured_slowdown_median": (quantiles([t["ratio"] for t in trials]).get("median", 1.0) - 1),
        # Trials whose two contenders calibrated about the same loop count measure the injected
        # slowdown without the bias that unequal value durations bring (see the A/A figure).
        "measured_slowdown_median_matched_loops": (
            quantiles([t["ratio"] for t in trials if loops_ratio(t) < LOOPS_RATIO_GROUPS[1][1]]).get("median", 1.0) - 1
        ),
        "ratio": quantiles([t["ratio"] for t in trials]),
        "ratio_precision": quantiles([t["ratio_precision"] for t in trials]),
        "time_to_verdict_wall_s": quantiles([t["wall_s"] for t in trials]),
        "time_to_verdict_timing_s": quantiles([t["timing_s"] for t in trials]),
        "time_to_verdict_wall_s_matched_loops": quantiles(
            [t["wall_s"] for t in trials if loops_ratio(t) < LOOPS_RATIO_GROUPS[1][1]]
        ),
        "precision_target_reached": sum(t["target_reached"] for t in trials),
        "by_loops_ratio": by_loops_ratio(trials, lambda t: t["verdict"] == SLOWER),
    }


def _print(figure: dict) -> None:
    s, settings = figure["summary"], figure["settings"]
    print()
    print(f"Power: perflab run, reference json.dumps(NESTED) vs the same + calibrated busy work, {s['trials']} trials")
    print(
        f"  settings: --precision {settings['precision_percent']:g}% --max-time {settings['max_time']:g} s "
        f"({describe_decision(settings)}); machine {figure['machine']['cpu_model']}, "
        f"{figure['machine']['cpu_count']} CPUs, shared"
    )
    print(f"  load average start {format_load(figure['start'])}, end {format_load(figure['end'])}")
    print(
        f"  injected slowdown: {figure['calibration']['busy_iterations']} busy-loop iterations, "
        f"{figure['calibration']['slowdown_at_calibration']:.2%} at calibration, "
        f"{s['measured_slowdown_median']:.2%} as measured by the trials (median ratio; "
        f"{s['measured_slowdown_median_matched_loops']:.2%} in trials whose loop counts differ < 2x)"
    )
    low, high = s["rate_ci95_clopper_pearson"]
    print(
        f"  detected as slower: {s['detected_slower']}/{s['trials']} = {s['detection_rate']:.0%} "
        f"(95% CI {low:.0%}-{high:.0%}); target {s['target']}: {'met' if s['target_met'] else 'NOT met'}"
    )
    print(f"  verdicts: {s['verdicts']}")
    r, w, t = s["ratio"], s["time_to_verdict_wall_s"], s["time_to_verdict_timing_s"]
    if r:
        print(f"  ratio: median {r['median']:.4f}, 5-95% {r['p5']:.4f}-{r['p95']:.4f}")
        print(
            f"  time to verdict: median {w['median']:.1f} s wall (timing phase {t['median']:.1f} s), "
            f"max {w['max']:.1f} s; 1% precision reached in {s['precision_target_reached']}/{s['trials']}"
        )
        matched = s["time_to_verdict_wall_s_matched_loops"]
        if matched:
            print(f"  time to verdict in trials whose loop counts differ < 2x: median {matched['median']:.1f} s wall")
        print_by_loops_ratio(s["by_loops_ratio"], "detected as slower")


if __name__ == "__main__":
    sys.exit(main())
