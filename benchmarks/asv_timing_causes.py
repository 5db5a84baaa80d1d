"""Figure: why perflab's and asv's times of one asv suite differed, by experiment in one process.

Three experiments on the same Python, interleaved (benchmarks/README.md, "asv suites"):

1. Every timed case of the suite, ``--repeats`` times in turn: asv_runner's own
   ``TimeBenchmark.run`` (asv's samples; its median, and the ``number`` it chose) beside perflab's
   worker timing of the same case (perflab.bench.asv_suite's contender, calibrated to 5 ms values as
   a worker calibrates it; the median of 10 values after 2 warm-ups).
2. The cost of a clock read: ``time.perf_counter()`` twice back to back, the median difference of
   100,000 pairs (asv's time of a call timed alone includes one).
3. A cold call: a setup-and-call of ``Popping.time_pop``'s shape timed alone right after a blocking
   pipe read (as a worker waits for its next command), against the same timed back to back.

    python benchmarks/asv_timing_causes.py                 # tests/data/asv_suite, 3 repeats
    python benchmarks/asv_timing_causes.py --quick         # smoke run: one case, one repeat, 200 cold calls
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import _cli
from _common import finish, machine_line, new_figure

from perflab.bench import asv_suite
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


def side_by_side(repeats: int, only: str | None) -> dict[str, dict]:
    from asv_runner.discovery import disc_benchmarks

    sys.path.insert(0, str(SUITE.parent))
    theirs = {benchmark.name: benchmark for benchmark in disc_benchmarks(str(SUITE))}
    ours = asv_suite.load(SUITE)  # its own import of the suite, as in a worker
    operation = ours.contenders[asv_suite.CONTENDER].build()
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


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 3, "asv/perflab repetitions of each case, interleaved", flag="--repeats")
    arguments.add_argument("--cases", metavar="TEXT", help="only the cases whose name contains TEXT")
    arguments.add_argument("--calls", type=int, default=4000, help="cold calls in experiment 3 (default 4000)")
    args = _cli.parse(arguments, repeats=1, cases="time_upper(1, 'a')", calls=200)
    figure = new_figure(NAME, {"repeats": args.repeats, "cases": args.cases, "calls": args.calls})
    figure["cases"] = side_by_side(args.repeats, args.cases)
    figure["clock_read_s"] = clock_read()
    figure["cold_call"] = cold_and_warm(args.calls)
    return finish(NAME, figure, lambda f: None, show)


def show(figure: dict) -> None:
    print(f"{NAME}: asv_runner's run() and perflab's worker timing in one process; {machine_line(figure)}")
    for name, rows in figure["cases"].items():
        print(
            f"  {name}: asv {' / '.join(format_time(x) for x in rows['asv'])} (number {rows['asv_number'][-1]}); "
            f"perflab {' / '.join(format_time(x) for x in rows['perflab'])} (loops {rows['perflab_loops'][-1]})"
        )
    print(f"a clock read: {format_time(figure['clock_read_s'])} (time.perf_counter() twice, median of 100,000)")
    cold = figure["cold_call"]
    print(
        f"one setup+call timed after a blocking pipe read: {format_time(cold['cold'])} (median of {cold['cold_n']}); "
        f"back to back: {format_time(cold['warm'])} (median of {cold['warm_n']})"
    )


if __name__ == "__main__":
    sys.exit(main())
