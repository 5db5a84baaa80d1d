"""Figure: why perflab's and asv's times of one asv suite differed, by experiment in one process.

Five experiments on the same Python, interleaved (benchmarks/README.md, "asv suites"):

1. Every timed case of the suite, ``--repeats`` times in turn: asv_runner's own
   ``TimeBenchmark.run`` (asv's samples; its median, and the ``number`` it chose) beside perflab's
   worker timing of the same case (perflab.bench.asv_suite's contender, calibrated to 5 ms values as
   a worker calibrates it; the median of 10 values after 2 warm-ups).
2. The cost of a clock read: ``time.perf_counter()`` twice back to back, the median difference of
   100,000 pairs (asv's time of a call timed alone includes one).
3. A cold call: a setup-and-call of ``Popping.time_pop``'s shape timed alone right after a blocking
   pipe read (as a worker waits for its next command), against the same timed back to back.
4. The same loop count on both sides: every parameterized case without a setup hook (asv times it
   through its zero-argument function, ``timeit`` batches), asv_runner's own timer beside perflab's
   ``times_itself``, ``--batches`` pairs of ``--loops`` calls alternating; then that function's
   cost alone: perflab's (asv's bytecode, reading the benchmark from an object whose ``__dict__``
   is materialized, as asv_runner's is) against the same bytecode reading it from a fresh object.
   Each figure is the median of the per-pair ratios.
5. The statistic, for every case with a ``setup`` hook (each of asv's samples is one call timed
   alone after its setup): ``--repeats`` times in turn, asv_runner's own ``TimeBenchmark.run``
   (the median of its samples) beside 10 perflab values (after 2 warm-ups) of the same
   setup-and-call samples, each value summarized two ways: the mean of its calls (perflab's value
   before issue 27's last fix) and their middle (perflab's value since, asv's statistic). Also the
   spread of those 10 values, the tail (the calls over twice the median call: their share of the
   calls and of the calls' time), the calls per value and the first setup's time that sets them (``max_loops``).

    python benchmarks/asv_timing_causes.py                 # tests/data/asv_suite, 3 repeats
    python benchmarks/asv_timing_causes.py --quick         # smoke run: one case, one repeat, 200 cold calls, 5 pairs of 500
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import _cli
from _common import finish, machine_line, new_figure, pinned_to_one_cpu

from perflab.bench import asv_suite
from perflab.bench.optional import Skipped
from perflab.bench.worker.region import calibrate, measured_region
from perflab.units import format_time

NAME = "asv_timing_causes"
SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "asv_suite" / "benchmarks"
VALUES, WARMUPS, VALUE_TIME = 10, 2, 0.005


def asv_median(benchmark, index: int) -> tuple[float, int] | None:
    """asv_runner's own run of one parameter combination: (median of its samples, its number); None: skipped."""
    if benchmark._params:
        benchmark.set_param_idx(index)
    benchmark.set_cache(benchmark.do_setup_cache() if benchmark.setup_cache_key is not None else None)
    if benchmark.do_setup():
        return None
    try:
        result = benchmark.do_run()
    finally:
        benchmark.do_teardown()
    return statistics.median(result["samples"]), result["number"]


def perflab_median(operation, case) -> tuple[float, int]:
    """The worker's timing of one case: (median of its values, its loop count)."""
    prepared = case.build()
    loops = calibrate(operation, prepared, VALUE_TIME)
    values = [measured_region(operation, prepared, loops) / loops for _ in range(WARMUPS + VALUES)]
    return statistics.median(values[WARMUPS:]), loops


def both_sides():
    """asv_runner's benchmarks of the suite by name, perflab's Benchmark of it (its own import of the
    suite, as in a worker) and perflab's contender."""
    from asv_runner.discovery import disc_benchmarks

    sys.path.insert(0, str(SUITE.parent))
    theirs = {benchmark.name: benchmark for benchmark in disc_benchmarks(str(SUITE))}
    ours = asv_suite.load(SUITE)
    return theirs, ours, ours.contenders[asv_suite.CONTENDER].build()


def side_by_side(repeats: int, only: str | None) -> dict[str, dict]:
    theirs, ours, operation = both_sides()
    combinations = {
        name: (found.name, index)
        for found in asv_suite.discover(SUITE)
        for index, (name, _) in enumerate(found.combinations())
    }
    cases = {}
    for name, case in ours.cases.items():
        if "timeraw" in name or (only and only not in name):
            continue
        base, index = combinations[name]
        rows: dict[str, list] = {"asv": [], "asv_number": [], "perflab": [], "perflab_loops": []}
        for _ in range(repeats):
            theirs_now = asv_median(theirs[base], index)
            if theirs_now is None:
                break
            ours_now = perflab_median(operation, case)
            for key, value in zip(rows, (*theirs_now, *ours_now)):
                rows[key].append(value)
        if rows["asv"]:
            cases[name] = rows
    return cases


def clock_read() -> float:
    timer, differences = time.perf_counter, []
    for _ in range(100_000):
        begun = timer()
        differences.append(timer() - begun)
    return statistics.median(differences)


class Popping:
    def setup(self) -> None:
        self.items = [1]

    def time_pop(self) -> None:
        self.items.pop()


def one_call(popping: Popping) -> float:
    popping.setup()
    begun = time.perf_counter()
    popping.time_pop()
    return time.perf_counter() - begun


def cold_and_warm(calls: int) -> dict[str, float]:
    """Median seconds of one timed call after a blocking pipe read, and back to back."""
    popping, reading, writing = Popping(), *os.pipe()

    def commands() -> None:
        for _ in range(calls):
            time.sleep(0.001)
            os.write(writing, b'{"do": "value"}\n')

    threading.Thread(target=commands, daemon=True).start()
    cold, warm = [], []
    with os.fdopen(reading) as pipe:
        for number in range(calls):
            json.loads(pipe.readline())  # the worker's wait for its next command
            cold.append(one_call(popping))
            if number % 40 == 0:
                warm += [one_call(popping) for _ in range(100)]
    os.close(writing)
    return {"cold": statistics.median(cold), "warm": statistics.median(warm), "cold_n": len(cold), "warm_n": len(warm)}


def same_loops(loops: int, batches: int, only: str | None) -> dict[str, dict[str, float]]:
    """Experiment 4: {case: asv/perflab and materialized/fresh, medians of per-pair ratios, and
    the median nanoseconds per call of each side}."""
    theirs, ours, operation = both_sides()
    found = {}
    for discovered in asv_suite.discover(SUITE):
        if discovered.kind != "time" or not discovered.params or discovered.all_named("setup"):
            continue
        benchmark = theirs[discovered.name]
        for index, (name, _) in enumerate(discovered.combinations()):
            if only and only not in name:
                continue
            benchmark.set_param_idx(index)
            benchmark.do_setup()
            asv_timer = benchmark._get_timer(*benchmark._current_params)
            prepared = ours.cases[name].build()
            ours_now = asv_suite.timed_call(prepared)
            fresh = fresh_object_call(prepared)
            sides: dict[str, list[float]] = {"asv": [], "perflab": [], "materialized": [], "fresh": []}
            for _ in range(batches):
                sides["asv"].append(asv_timer.timeit(loops) / loops)
                sides["perflab"].append(operation.times_itself(prepared, loops) / loops)
                sides["materialized"].append(timed_loop(ours_now, loops) / loops)
                sides["fresh"].append(timed_loop(fresh, loops) / loops)
            benchmark.do_teardown()
            found[name] = {
                **{f"{side}_ns": statistics.median(values) * 1e9 for side, values in sides.items()},
                "asv_over_perflab": median_ratio(sides["asv"], sides["perflab"]),
                "materialized_over_fresh": median_ratio(sides["materialized"], sides["fresh"]),
            }
    return found


def fresh_object_call(prepared):
    """perflab's zero-argument function (asv's bytecode) reading the benchmark from an object whose
    ``__dict__`` was never materialized: what perflab timed before issue 27's fix. (Its own code
    object: specialization state is per code object.)"""

    class Fresh:
        def __init__(self, function) -> None:
            self.func = function

    harness, arguments = Fresh(prepared.benchmark.function), prepared.arguments

    def call() -> None:
        harness.func(*arguments)

    return call


def timed_loop(call, loops: int) -> float:
    timer, collecting = time.perf_counter, gc.isenabled()
    gc.disable()
    try:
        begun = timer()
        for _ in itertools.repeat(None, loops):
            call()
        return timer() - begun
    finally:
        if collecting:
            gc.enable()


def median_ratio(numerators: list[float], denominators: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(numerators, denominators))


def statistic(repeats: int, only: str | None) -> dict[str, dict]:
    """Experiment 5: {case: per repeat, asv's median and the medians of perflab's values as means
    and as middles of their calls; the values' spreads; the tail; calls per value}."""
    theirs, ours, operation = both_sides()
    found = {}
    for discovered in asv_suite.discover(SUITE):
        if discovered.kind != "time" or not discovered.all_named("setup"):
            continue
        for index, (name, _) in enumerate(discovered.combinations()):
            if only and only not in name:
                continue
            try:
                prepared = ours.cases[name].build()
            except Skipped:  # asv skips it too
                continue
            loops = operation.max_loops(prepared)
            rows: dict[str, list[float]] = {"asv": [], "mean": [], "middle": [], "mean_spread": [], "middle_spread": []}
            calls: list[float] = []
            for _ in range(repeats):
                theirs_now = asv_median(theirs[discovered.name], index)
                if theirs_now is None:
                    break
                rows["asv"].append(theirs_now[0])
                values = [asv_suite.samples(prepared, loops) for _ in range(WARMUPS + VALUES)][WARMUPS:]
                for kind, summary in (("mean", statistics.mean), ("middle", statistics.median)):
                    summarized = [summary(value) for value in values]
                    rows[kind].append(statistics.median(summarized))
                    rows[f"{kind}_spread"].append(relative_iqr(summarized))
                calls += itertools.chain.from_iterable(values)
            if rows["asv"]:
                middle = statistics.median(calls)
                slow = [call for call in calls if call > 2 * middle]
                found[name] = {
                    **rows,
                    "loops": loops,
                    "first_setup_s": prepared.setup_seconds,
                    "tail_calls": len(slow) / len(calls),
                    "tail_share": sum(slow) / sum(calls),
                }
    return found


def relative_iqr(values: list[float]) -> float:
    low, _, high = statistics.quantiles(values, n=4)
    return (high - low) / statistics.median(values)


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 3, "asv/perflab repetitions of each case, interleaved", flag="--repeats")
    arguments.add_argument("--cases", metavar="TEXT", help="only the cases whose name contains TEXT")
    arguments.add_argument("--calls", type=int, default=4000, help="cold calls in experiment 3 (default 4000)")
    arguments.add_argument("--loops", type=int, default=5000, help="calls per timing in experiment 4 (default 5000)")
    arguments.add_argument("--batches", type=int, default=300, help="pairs of timings in experiment 4 (default 300)")
    args = _cli.parse(arguments, repeats=1, cases="time_upper(1, 'a')", calls=200, loops=500, batches=5)
    settings = {"repeats": args.repeats, "cases": args.cases, "calls": args.calls, "loops": args.loops}
    figure = new_figure(NAME, {**settings, "batches": args.batches, "python": sys.version.split()[0]})
    figure["cases"] = side_by_side(args.repeats, args.cases)
    figure["clock_read_s"] = clock_read()
    figure["cold_call"] = cold_and_warm(args.calls)
    with pinned_to_one_cpu():
        figure["same_loops"] = same_loops(args.loops, args.batches, None if _cli.is_smoke() else args.cases)
    figure["statistic"] = statistic(args.repeats, args.cases)
    return finish(NAME, figure, lambda f: None, show)


def show(figure: dict) -> None:
    print(f"{NAME}: asv_runner's run() and perflab's worker timing in one process; {machine_line(figure)}")
    for name, rows in figure["cases"].items():
        print(
            f"  {name}: asv {times(rows['asv'])} (number {rows['asv_number'][-1]}); "
            f"perflab {times(rows['perflab'])} (loops {rows['perflab_loops'][-1]})"
        )
    print(f"a clock read: {format_time(figure['clock_read_s'])} (time.perf_counter() twice, median of 100,000)")
    cold = figure["cold_call"]
    print(
        f"one setup+call timed after a blocking pipe read: {format_time(cold['cold'])} (median of {cold['cold_n']}); "
        f"back to back: {format_time(cold['warm'])} (median of {cold['warm_n']})"
    )
    settings = figure["settings"]
    print(
        f"same loops ({settings['loops']} calls, {settings['batches']} alternating pairs, one CPU, "
        f"Python {settings.get('python', '?')}): asv_runner's timer / perflab's, and asv's function reading "
        "the benchmark from a materialized __dict__ / from a fresh object (medians of per-pair ratios):"
    )
    for name, row in figure.get("same_loops", {}).items():
        print(
            f"  {name}: asv {row['asv_ns']:.1f} ns, perflab {row['perflab_ns']:.1f} ns, ratio "
            f"{row['asv_over_perflab']:.3f}; materialized / fresh {row['materialized_over_fresh']:.3f}"
        )
    print(
        f"the statistic, cases with a setup (asv's median; perflab's {VALUES} values as the mean of their calls "
        "and as their middle, the median of each with the values' interquartile range / median):"
    )
    for name, row in figure.get("statistic", {}).items():
        print(
            f"  {name}: asv {times(row['asv'])}; mean {times(row['mean'])} (spread {percents(row['mean_spread'])}); "
            f"middle {times(row['middle'])} (spread {percents(row['middle_spread'])}); {row['loops']} calls a "
            f"value (first setup {format_time(row['first_setup_s'])}); calls over twice the median call: "
            f"{row['tail_calls']:.1%} of the calls, {row['tail_share']:.0%} of their time"
        )


def times(values: list[float]) -> str:
    return " / ".join(format_time(value) for value in values)


def percents(values: list[float]) -> str:
    return " / ".join(f"{value:.0%}" for value in values)


if __name__ == "__main__":
    sys.exit(main())
