"""Figure: perflab against pyperf on pyperformance benchmarks, by thread CPU time and by wall time
(issue 38: "the estimate depends on the loop count").

For each benchmark (tiny, medium and large times per call), run unchanged from the installed
pyperformance: ``perflab run pyperformance:NAME --clock CLOCK --max-time T --json`` and the
script under pyperf itself (``--fast``, its default loop calibration, ``-o``), with each clock:

- ``cpu``: perflab's ``--clock cpu``; pyperf with ``time.perf_counter`` replaced by
  ``time.thread_time`` in every process (a ``sitecustomize`` on ``PYTHONPATH``, inherited by its
  workers), so that both time the thread's CPU time and a busy machine is out of the picture;
- ``wall``: both tools as they are (a figure for a quiet machine: the load average is printed).

Printed per benchmark and clock: each tool's median with a 95% interval (pyperf's from its own
values, by perflab's cluster bootstrap over its worker processes), their ratio, whether each median
lies inside the other's interval, perflab's value length and the warnings it gave (a value length
that moved the estimate is a stated cause of a difference).

    python benchmarks/pyperf_agreement.py                       # 13 benchmarks, both clocks
    python benchmarks/pyperf_agreement.py --clocks cpu --names unpack_sequence deltablue
    python benchmarks/pyperf_agreement.py --quick               # smoke run: one benchmark, tiny budgets

Target (issue 38): medians within 3% by CPU time, each inside the other's 95% interval or the
difference explained by a cause the result reports.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import _cli
from _common import (
    conditions,
    finish,
    machine_line,
    new_figure,
    perflab_json,
    pyperf_process_values,
    run_pyperf_runner,
)

from perflab.analysis import estimates
from perflab.pyperformance_benchmarks import benchmarks_directory

NAME = "pyperf_agreement"
# One benchmark a script, from ~30 ns to ~100 ms a call on this project's VM.
NAMES = [
    "unpack_sequence",
    "json_loads",
    "float",
    "nbody",
    "richards",
    "deltablue",
    "chaos",
    "go",
    "hexiom",
    "nqueens",
    "spectral_norm",
    "fannkuch",
    "raytrace",
]
SITECUSTOMIZE = "import time\ntime.perf_counter = time.thread_time  # pyperf times the thread's CPU time\n"


def pyperf_side(script: Path, clock: str, folder: Path) -> dict:
    out = folder / "pyperf.json"
    environment = dict(os.environ)
    options = ["--fast"]
    if clock == "cpu":
        (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), environment.get("PYTHONPATH")]))
        options += ["--inherit-environ", "PYTHONPATH"]
    saved = dict(os.environ)
    os.environ.update(environment)
    try:
        wall, _ = run_pyperf_runner([str(script)], out, *options)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    interval = estimates.estimate_cell(pyperf_process_values(out)).median
    return {"median": interval.value, "ci": [interval.low, interval.high], "wall_s": round(wall, 1)}


def perflab_side(name: str, clock: str, max_time: float, folder: Path) -> dict:
    run = perflab_json(
        ["run", f"pyperformance:{name}", "--clock", clock, "--max-time", str(max_time)], folder / "perflab.json"
    )
    cell = run.result["cells"][0]
    median = cell["estimates"]["median"] if cell.get("estimates") else None
    lengths = run.result["metadata"].get("value_lengths", {}).get(cell["case"], {})
    return {
        "case": cell["case"],
        "median": median and median["value"],
        "ci": median and [float(median["low"]), float(median["high"])],
        "value_length_s": lengths.get("seconds"),
        "warnings": run.result["metadata"].get("timing_warnings", []),
        # The machine's own speed during perflab's run: a spread beyond 10% is a stated cause of a
        # difference from pyperf, whose run came after it (perflab.results.machine_speed).
        "machine_speed": run.result["metadata"].get("machine_speed"),
        "wall_s": round(run.wall, 1),
    }


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--names", nargs="+", default=NAMES, help="pyperformance benchmarks (folder names)")
    arguments.add_argument("--clocks", nargs="+", choices=("cpu", "wall"), default=["cpu", "wall"])
    arguments.add_argument("--max-time", type=float, default=30.0, help="perflab's --max-time (default 30)")
    _cli.add_name(arguments, NAME)
    args = _cli.parse(arguments, names=["unpack_sequence"], clocks=["cpu"], max_time=6.0)
    directory = benchmarks_directory()
    if directory is None:
        print("pyperformance is not installed: pip install pyperformance", file=sys.stderr)
        return 2
    figure = new_figure(args.name, {"max_time": args.max_time, "pyperf": "--fast"}, rows=[])
    for name in args.names:
        for clock in args.clocks:
            with tempfile.TemporaryDirectory() as folder:
                row = {"name": name, "clock": clock, "load_average": conditions()["load_average"]}
                try:
                    row["perflab"] = perflab_side(name, clock, args.max_time, Path(folder))
                    row["pyperf"] = pyperf_side(directory / f"bm_{name}" / "run_benchmark.py", clock, Path(folder))
                except RuntimeError as error:
                    row["error"] = str(error)[-300:]
                figure["rows"].append(row)
                print(line(row), flush=True)
    return finish(args.name, figure, summarize, show)


def summarize(figure: dict) -> None:
    for row in figure["rows"]:
        mine, theirs = row.get("perflab", {}), row.get("pyperf", {})
        if mine.get("median") and theirs.get("median"):
            row["ratio"] = mine["median"] / theirs["median"]
            row["perflab_in_pyperf"] = theirs["ci"][0] <= mine["median"] <= theirs["ci"][1]
            row["pyperf_in_perflab"] = mine["ci"][0] <= theirs["median"] <= mine["ci"][1]
    rows = [r for r in figure["rows"] if "ratio" in r]
    for clock in ("cpu", "wall"):
        mine = [r for r in rows if r["clock"] == clock]
        figure[f"{clock}_within_3_percent"] = [sum(abs(r["ratio"] - 1) <= 0.03 for r in mine), len(mine)]
        steady = [r for r in mine if not _speed_changed(r)]
        figure[f"{clock}_steady_within_3_percent"] = [sum(abs(r["ratio"] - 1) <= 0.03 for r in steady), len(steady)]


def _speed_changed(row: dict) -> bool:
    spread = (row["perflab"].get("machine_speed") or {}).get("spread")
    return spread is not None and spread > 0.10


def line(row: dict) -> str:
    if "error" in row:
        return f"{row['name']:16s} {row['clock']:4s} error: {row['error']}"
    mine, theirs = row["perflab"], row["pyperf"]
    if mine["median"] is None:  # the budget ran out before a measured round
        return (
            f"{row['name']:16s} {row['clock']:4s} perflab: not timed within --max-time; pyperf {theirs['median']:.4g}"
        )
    ratio = mine["median"] / theirs["median"]
    return (
        f"{row['name']:16s} {row['clock']:4s} perflab {mine['median']:.4g} [{mine['ci'][0]:.4g}, {mine['ci'][1]:.4g}] "
        f"pyperf {theirs['median']:.4g} [{theirs['ci'][0]:.4g}, {theirs['ci'][1]:.4g}] ratio {ratio:.3f}; "
        f"values {mine['value_length_s'] or 0:.3g} s; warnings {len(mine['warnings'])}; "
        f"load {row['load_average'][0]:.1f}; {mine['wall_s']} s / {theirs['wall_s']} s"
        + (f"; machine speed spread {mine['machine_speed']['spread']:+.0%}" if mine.get("machine_speed") else "")
    )


def show(figure: dict) -> None:
    print(machine_line(figure))
    for row in figure["rows"]:
        inside = ""
        if "ratio" in row:
            inside = f" inside: perflab's in pyperf's {row['perflab_in_pyperf']}, pyperf's in perflab's {row['pyperf_in_perflab']}"
        print(line(row) + inside)
        for warning in row.get("perflab", {}).get("warnings", []):
            print(f"    {warning}")
    for clock in sorted({row["clock"] for row in figure["rows"]}):
        within, total = figure.get(f"{clock}_within_3_percent", [0, 0])
        steady, of_steady = figure.get(f"{clock}_steady_within_3_percent", [0, 0])
        print(
            f"{clock}: medians within 3% for {within} of {total}; for {steady} of the {of_steady} whose "
            "perflab run saw the machine's own speed change by no more than 10%"
        )


if __name__ == "__main__":
    sys.exit(main())
