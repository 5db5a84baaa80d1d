"""Figure: perflab and hyperfine side by side on the same two commands.

Two runs of one C++ program (tests/native/split.cpp, compiled here) that differ by ``--difference``
of work: ``split N`` and ``split M``. Each trial runs, one after the other,

- ``perflab run --command 'split N' --command 'split M' --precision 1 --json out.json``: paired,
  interleaved processes until the ratio's 95% interval is within 1% (or ``--max-time``);
- ``hyperfine -N --warmup 3 --export-json h.json 'split N' 'split M'`` at hyperfine's defaults
  (each command's runs in one block, at least 10 runs and 3 s): its means and standard deviations,
  the ratio of means with a 95% interval by the delta method (hyperfine itself prints the ratio
  with a standard error), and the runs, hence time, that interval would need to reach ±1%
  (extrapolated: the half-width shrinks as 1/sqrt(runs)).

Printed and written to benchmarks/results/hyperfine_side_by_side.json: the time each took, the
ratio each found with its interval, and whether the two intervals overlap (they should: both
estimate the same ratio), with the load average. hyperfine comes from ``cargo install hyperfine``
(or ``--hyperfine PATH``).

    python benchmarks/hyperfine_side_by_side.py                  # 5 trials
    python benchmarks/hyperfine_side_by_side.py --quick          # smoke run: 1 trial of 5 ms programs, 2 rounds, 5 runs
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import _cli
from _common import finish, format_load, new_figure, quantiles, report_again
from _native import compare_commands, split_program

NAME = "hyperfine_side_by_side"
Z95 = 1.959964


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 5, "side-by-side trials")
    arguments.add_argument("--difference", type=float, default=0.10, help="extra work of the second command (0.10)")
    _cli.add_work(arguments, 0.02)
    _cli.add_timing(arguments, 120.0, precision=False)
    arguments.add_argument("--hyperfine", default=shutil.which("hyperfine"), help="the hyperfine program")
    _cli.add_report(arguments)
    # A smoke run stops after 2 rounds, not at --max-time (at 2 s a loaded machine, load 7, ended the run
    # before any comparison), and hyperfine after 5 runs of each command.
    args = _cli.parse(arguments, trials=1, work=0.005, max_time=60.0)
    if args.report:
        return report_again(NAME, _summarize, _print)
    if not args.hyperfine:
        raise SystemExit("hyperfine is not installed: cargo install hyperfine (or give --hyperfine PATH)")
    version = subprocess.run([args.hyperfine, "--version"], capture_output=True, text=True).stdout.strip()
    figure = new_figure(NAME, {}, hyperfine=version, trials=[])
    with tempfile.TemporaryDirectory(prefix="perflab-hyperfine-") as directory:
        binary, n = split_program(Path(directory), args.work)
        m = round(n * (1 + args.difference))
        commands = [f"{binary} {n}", f"{binary} {m}"]
        figure["settings"] = {"n": n, "m": m, "work_s": args.work, "max_time": args.max_time}
        for trial in range(args.trials):
            perflab = _perflab(commands, Path(directory), _cli.timing_options(args))
            hyperfine = _hyperfine(args.hyperfine, commands, Path(directory))
            overlap = (
                perflab["ratio_ci"][0] <= hyperfine["ratio_ci"][1]
                and hyperfine["ratio_ci"][0] <= perflab["ratio_ci"][1]
            )
            figure["trials"].append({"perflab": perflab, "hyperfine": hyperfine, "intervals_overlap": overlap})
            print(
                f"trial {trial + 1}: perflab ratio {perflab['ratio']:.4f} [{perflab['ratio_ci'][0]:.4f}, "
                f"{perflab['ratio_ci'][1]:.4f}] in {perflab['wall_s']:.1f} s; hyperfine {hyperfine['ratio']:.4f} "
                f"[{hyperfine['ratio_ci'][0]:.4f}, {hyperfine['ratio_ci'][1]:.4f}] in {hyperfine['wall_s']:.1f} s "
                f"(±1% would take ~{hyperfine['seconds_to_1pct']:.0f} s); overlap {overlap}",
                flush=True,
            )
    return finish(NAME, figure, _summarize, _print)


def _perflab(commands: list[str], directory: Path, timing: list[str]) -> dict:
    run = compare_commands(*commands, directory / "out.json", "--precision", "1", *timing, names=("N", "M"))
    summary = run.summary("M")
    return {
        "wall_s": summary["wall_s"],
        "ratio": summary["ratio"],
        "ratio_ci": summary["ratio_ci"],
        "target_reached": summary["target_reached"],
        "rounds": summary["rounds"],
        "medians_s": {c["contender"]: c["estimates"]["median"]["value"] for c in run.result["cells"]},
    }


def _hyperfine(hyperfine: str, commands: list[str], directory: Path) -> dict:
    out = directory / "h.json"
    started = time.monotonic()
    subprocess.run(
        [hyperfine, "-N", "--warmup", "3", *(["--runs", "5"] if _cli.is_smoke() else []), "--export-json", str(out)]
        + commands,
        check=True,
        capture_output=True,
    )
    wall = time.monotonic() - started
    a, b = json.loads(out.read_text())["results"]
    ratio = b["mean"] / a["mean"]
    relative_se = math.sqrt(
        (a["stddev"] ** 2 / len(a["times"])) / a["mean"] ** 2 + (b["stddev"] ** 2 / len(b["times"])) / b["mean"] ** 2
    )
    half = Z95 * relative_se
    runs = len(a["times"]) + len(b["times"])
    runs_to_1pct = runs * (half / 0.01) ** 2
    return {
        "wall_s": round(wall, 3),
        "runs": runs,
        "means_s": [a["mean"], b["mean"]],
        "stddevs_s": [a["stddev"], b["stddev"]],
        "ratio": ratio,
        "ratio_ci": [ratio * (1 - half), ratio * (1 + half)],
        "seconds_to_1pct": wall * max(1.0, runs_to_1pct / runs),
    }


def _summarize(figure: dict) -> None:
    trials = figure["trials"]
    figure["summary"] = {
        "trials": len(trials),
        "overlapping": sum(t["intervals_overlap"] for t in trials),
        "perflab_wall_s": quantiles([t["perflab"]["wall_s"] for t in trials]),
        "perflab_target_reached": sum(t["perflab"]["target_reached"] for t in trials),
        "hyperfine_wall_s": quantiles([t["hyperfine"]["wall_s"] for t in trials]),
        "hyperfine_seconds_to_1pct": quantiles([t["hyperfine"]["seconds_to_1pct"] for t in trials]),
    }


def _print(figure: dict) -> None:
    s, settings = figure["summary"], figure["settings"]
    print(
        f"\nsplit {settings['n']} vs split {settings['m']} (about {settings['work_s'] * 1e3:g} ms a run), "
        f"{s['trials']} trials, {figure['hyperfine']}"
    )
    if s["trials"]:
        print(
            f"perflab to a ±1% ratio interval: median {s['perflab_wall_s']['median']:.1f} s "
            f"(target reached in {s['perflab_target_reached']}/{s['trials']}, paired, with equivalence checks)"
        )
        print(
            f"hyperfine at its defaults: median {s['hyperfine_wall_s']['median']:.1f} s; to ±1% (extrapolated): "
            f"median {s['hyperfine_seconds_to_1pct']['median']:.0f} s"
        )
        print(f"intervals of the ratio overlap in {s['overlapping']}/{s['trials']} trials")
    print(f"load average at start {format_load(figure['start'])}, at end {format_load(figure['end'])}")


if __name__ == "__main__":
    raise SystemExit(main())
