"""Figures of the regression guard on replayed real noise: false change points per 1,000 points,
detection delay of injected 5% and 10% steps, and false alarms of the CI gate.

How: identical code (json.dumps of a small dict, one contender) is measured again and again
with ``perflab run --json`` on this machine (``--runs``, default 16, at ``--max-time`` 8 s each).
A synthetic history point is one of those real runs picked at random with its worker processes
resampled (a cluster bootstrap), then estimated like a real run (median and 95% interval by
``estimates.estimate_cell``). Whole runs are picked, so a run that the machine made slow stays slow
in the replay: the between-run noise of the machine is kept, not averaged away.

- False change points: ``--series`` histories of ``--length`` replayed points, ``changepoints.detect``
  on each whole history (what ``perflab history`` shows), and online: the detector run after
  every new point, counting every place a step was ever reported, tentative ones included (what
  a nightly job alerting on the newest runs would have raised).
- Detection delay: 40 replayed points, then points multiplied by 1.05 (or 1.10); after each new
  point the detector runs on the history so far; the delay is the number of slower points
  measured when a slowdown is first reported within 2 points of the true step.
- CI gate: every ordered pair of real runs is one check of identical code (threshold 5%), and the
  same pairs with the current run's values multiplied by 1.10 give its power; with ``--confirm 1``
  every third run re-measures the current code.

    python benchmarks/changepoint_replay.py             # measures once (~4 min), then replays (~5 min)
    python benchmarks/changepoint_replay.py --remeasure
    python benchmarks/changepoint_replay.py --quick     # smoke run: 3 of the saved runs, 2 short histories

Writes benchmarks/results/changepoint_replay.json (raw runs: changepoint_measurements.json).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import binomial_interval, conditions, machine, run_perflab

from perflab.analysis import changepoints, estimates, gate
from perflab.results.model import RunResult

MEASUREMENTS = "changepoint_measurements"  # the real runs replayed, a results file of their own
PRE_STEP = 40
MAX_DELAY = 10
LOCATION_TOLERANCE = 2

NOISE_BENCHMARK = """\
import json

import perflab

bench = perflab.Benchmark("replayed_noise", description="identical code, measured again and again")


@bench.case
def SMALL():
    return {"name": "perflab", "tags": ["a", "b"], "score": 1.5, "n": list(range(20))}


@bench.contender
def stdlib(obj):
    return json.dumps(obj)
"""


def measure(runs: int, max_time: float) -> list[dict]:
    """Real runs of identical code: the full results of each (process values and metadata)."""
    measured = []
    with tempfile.TemporaryDirectory() as tmp:
        bench = Path(tmp) / "replayed_noise.py"
        bench.write_text(NOISE_BENCHMARK)
        for index in range(runs):
            run = run_perflab(str(bench), Path(tmp) / f"run{index}.json", "--max-time", f"{max_time:g}", "--no-store")
            measured.append(run.result)
            median = run.result["cells"][0]["estimates"]["median"]["value"]
            print(f"  run {index + 1}/{runs}: median {median * 1e6:.3f} us", flush=True)
    return measured


def replayed_point(runs: list[list[list[float]]], rng: np.random.Generator, factor: float = 1.0) -> changepoints.Point:
    processes = runs[rng.integers(len(runs))]
    picked = [[v * factor for v in processes[i]] for i in rng.integers(0, len(processes), len(processes))]
    median = estimates.estimate_cell(picked, seed=int(rng.integers(2**31)), resamples=400).median
    return changepoints.Point("", median.value, median.low, median.high)


def false_change_points(runs, rng, series: int, length: int) -> dict:
    offline, online, online_confirmed = 0, 0, 0
    for _ in range(series):
        points = [replayed_point(runs, rng) for _ in range(length)]
        offline += len(changepoints.detect(points).steps)
        reported = [changepoints.detect(points[:end]).steps for end in range(2 * changepoints.MIN_SEGMENT, length + 1)]
        online += _places({step.index for steps in reported for step in steps})
        online_confirmed += _places({step.index for steps in reported for step in steps if not step.tentative})
    total = series * length

    def rate(count: int) -> dict:
        return {
            "count": count,
            "per_1000_points": 1000 * count / total,
            "per_1000_points_ci95": [1000 * x for x in binomial_interval(count, total)],
        }

    return {
        "series": series,
        "length": length,
        "points": total,
        "whole_history": rate(offline),
        "online_including_tentative": rate(online),
        "online_confirmed_only": rate(online_confirmed),
    }


def _places(indices: set[int]) -> int:
    """Alerts at distinct places: a step reported at index 50, then at 51, is one alert."""
    ordered = sorted(indices)
    return sum(1 for i, index in enumerate(ordered) if i == 0 or index - ordered[i - 1] > LOCATION_TOLERANCE)


def detection_delay(runs, rng, step: float, trials: int) -> dict:
    """Commits measured after the step when it is first reported (tentatively, and confirmed)."""
    first, confirmed = [], []
    for _ in range(trials):
        points = [replayed_point(runs, rng) for _ in range(PRE_STEP)]
        delay = delay_confirmed = None
        for after in range(1, MAX_DELAY + 1):
            points.append(replayed_point(runs, rng, step))
            near = [
                s
                for s in changepoints.detect(points).steps
                if abs(s.index - PRE_STEP) <= LOCATION_TOLERANCE and s.ratio.value > 1
            ]
            delay = delay or (after if near else None)
            delay_confirmed = delay_confirmed or (after if any(not s.tentative for s in near) else None)
            if delay_confirmed:
                break
        first.append(delay)
        confirmed.append(delay_confirmed)

    def summary(delays: list[int | None]) -> dict:
        found = [d for d in delays if d is not None]
        within_two = sum(1 for d in found if d <= 2)
        return {
            "median_delay": float(np.median(found)) if found else None,
            "delays": delays,
            "detected_within_2": within_two,
            "detected_within_2_ci95": binomial_interval(within_two, trials),
            f"not_detected_within_{MAX_DELAY}": trials - len(found),
        }

    return {"step": step, "trials": trials, "first_report": summary(first), "confirmed": summary(confirmed)}


def gate_replay(results: list[RunResult], threshold: float) -> dict:
    """Every ordered pair (baseline, current) of real runs is one check; with ``--confirm 1`` a
    third run (every other one in turn) re-measures the current code before a failure stands."""
    slowed = [_slowed(r, 1 + 2 * threshold) for r in results]
    n = len(results)
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    single = {key: gate.check(results[key[0]], results[key[1]], threshold) for key in pairs}
    single_slow = {key: gate.check(results[key[0]], slowed[key[1]], threshold) for key in pairs}
    triples = [(i, j, k) for i, j in pairs for k in range(n) if k not in (i, j)]

    def confirmed(first: dict, current: list[RunResult], i: int, j: int, k: int) -> bool:
        if not first[i, j].regressions:
            return False
        return bool(gate.confirm(first[i, j], gate.check(results[i], current[k], threshold)).regressions)

    alarms = sum(1 for key in pairs if single[key].regressions)
    caught = sum(1 for key in pairs if single_slow[key].regressions)
    alarms_confirmed = sum(confirmed(single, results, *t) for t in triples)
    caught_confirmed = sum(confirmed(single_slow, slowed, *t) for t in triples)
    slowdown = f"{2 * threshold:.0%}"

    def rates(checks: int, false_alarms: int, caught: int) -> dict:
        return {
            "checks": checks,
            "false_alarms": false_alarms,
            "false_alarm_rate_ci95": binomial_interval(false_alarms, checks),
            f"caught_{slowdown}_slowdown": caught,
            "detection_rate_ci95": binomial_interval(caught, checks),
        }

    return {
        "threshold": threshold,
        "method": "Yuen-Welch t on per-process log medians, 20% trimmed",
        "no_confirmation": rates(len(pairs), alarms, caught),
        "confirm_1": rates(len(triples), alarms_confirmed, caught_confirmed),
    }


def _slowed(result: RunResult, factor: float) -> RunResult:
    copy = RunResult.from_json(result.to_json())
    for cell in copy.cells:
        for run in cell.runs:
            run.values = [v * factor for v in run.values]
    return copy


def main() -> None:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--remeasure", action="store_true", help="measure new runs even if some are saved")
    arguments.add_argument("--runs", type=int, default=16, help="runs to measure, and to replay (default 16)")
    _cli.add_timing(arguments, 8.0, precision=False)
    arguments.add_argument("--series", type=int, default=10, help="replayed histories (default 10)")
    arguments.add_argument("--length", type=int, default=100, help="points per history (default 100)")
    _cli.add_trials(arguments, 100, "replayed steps per size")
    arguments.add_argument("--seed", type=int, default=1, help="seed of the replay (default 1)")
    args = _cli.parse(arguments, runs=3, max_time=2.0, series=2, length=60, trials=5)
    before = conditions()
    if args.remeasure or not (_cli.RESULTS / f"{MEASUREMENTS}.json").exists():
        print(f"measuring {args.runs} runs of identical code ...", flush=True)
        runs = measure(args.runs, args.max_time)
        _cli.write_figure(MEASUREMENTS, {"conditions": before, "machine": machine(), "runs": runs})
        saved = json.loads(_cli.results_file(MEASUREMENTS).read_text())
    else:
        saved = _cli.read_figure(MEASUREMENTS)
    results = [RunResult.from_json(r) for r in saved["runs"][: args.runs]]
    runs = [r.cells[0].process_values() for r in results]
    medians = np.array([r.cells[0].estimates.median.value for r in results])
    slow = int(np.sum(medians > 1.5 * np.median(medians)))
    print(
        f"{len(runs)} real runs: medians {medians.min() * 1e6:.2f}-{medians.max() * 1e6:.2f} us; "
        f"{slow} of them > 1.5x the median run (the machine was busy during the whole run)"
    )
    rng = np.random.default_rng(args.seed)
    started = time.monotonic()
    false_cp = false_change_points(runs, rng, args.series, args.length)
    for kind in ("whole_history", "online_including_tentative", "online_confirmed_only"):
        found = false_cp[kind]
        low, high = found["per_1000_points_ci95"]
        print(
            f"false change points ({kind.replace('_', ' ')}): {found['per_1000_points']:.2f} per 1,000 replayed "
            f"points (95% CI {low:.2f}-{high:.2f}; {false_cp['points']} points; target <= 1)"
        )
    delays = [detection_delay(runs, rng, step, args.trials) for step in (1.05, 1.10)]
    for d in delays:
        for kind in ("first_report", "confirmed"):
            k = d[kind]
            print(
                f"step +{d['step'] - 1:.0%} ({kind.replace('_', ' ')}): median delay {k['median_delay']} commits; "
                f"within 2 commits in {k['detected_within_2']}/{d['trials']}; not within {MAX_DELAY}: "
                f"{k[f'not_detected_within_{MAX_DELAY}']} (target <= 2)"
            )
    gated = gate_replay(results, 0.05)
    for kind in ("no_confirmation", "confirm_1"):
        g = gated[kind]
        print(
            f"CI gate on identical code ({kind.replace('_', ' ')}): {g['false_alarms']}/{g['checks']} false "
            f"regressions at threshold 5%; a 10% slowdown is caught in {g['caught_10%_slowdown']}/{g['checks']}"
        )
    figure = {
        "what": __doc__.split("\n\n")[0],
        "conditions": {"measured": saved["conditions"], "replayed": before, "end": conditions()},
        "machine": saved["machine"],
        "runs": len(runs),
        "run_medians_s": medians.tolist(),
        "slow_runs": slow,
        "seed": args.seed,
        "replay_seconds": round(time.monotonic() - started, 1),
        "detector": {
            "method": "PELT, Student-t cost weighted by per-point variance",
            "penalty_per_log_n": changepoints.PENALTY_PER_LOG_N,
            "min_segment": changepoints.MIN_SEGMENT,
            "max_transient": changepoints.MAX_TRANSIENT,
            "min_step": changepoints.MIN_STEP,
            "confirmed_after": changepoints.CONFIRMED,
        },
        "false_change_points": false_cp,
        "detection_delay": delays,
        "gate": gated,
    }
    _cli.written(_cli.write_figure("changepoint_replay", figure))


if __name__ == "__main__":
    main()
