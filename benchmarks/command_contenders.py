"""Figure: A/A false verdicts and power at a 5% slowdown, for command contenders.

The programs are one C++ binary (tests/native/split.cpp, compiled here) run as processes by
``perflab run --command 'split N' --command 'split M' --json out.json``: every value is whole
processes (spawn to exit), interleaved across the two commands on one CPU, as for Python
contenders. A/A: M = N, so any verdict other than "no detectable difference" is false. Power: M
is sized (before the trials, alternating runs in this process) so that ``split M`` takes 5% longer
than ``split N`` with process start-up included; a trial detects it when its verdict is "slower".
Printed and written to benchmarks/results/command_contenders.json: both rates with exact
(Clopper-Pearson) 95% intervals, ratios, rounds and time to the verdict, and the load average.

    python benchmarks/command_contenders.py                                  # 40 A/A + 25 power trials
    python benchmarks/command_contenders.py --quick                          # smoke run: 1 power trial, no A/A trial

Targets (as for Python contenders): <= 1% false verdicts; "slower" in >= 80% of trials within 60 s.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import _cli
from _common import binomial_interval, finish, format_load, new_figure, quantiles, report_again, trial_line
from _native import compare_commands, slowed, split_program

NAME = "command_contenders"
NO_DIFFERENCE, SLOWER = "no detectable difference", "slower"


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 40, "A/A trials", flag="--aa")
    _cli.add_trials(arguments, 25, "trials with a slowdown", flag="--power")
    arguments.add_argument("--slowdown", type=float, default=0.05, help="the slowdown to detect (default 0.05)")
    _cli.add_work(arguments, 0.02)
    _cli.add_timing(arguments, 60.0)
    _cli.add_report(arguments)
    # A smoke run times the power pair only: an A/A trial is the same run with N for M.
    args = _cli.parse(arguments, aa=0, power=1, work=0.005, max_time=20.0, precision=50.0)
    if args.report:
        return report_again(NAME, _summarize, _print)
    figure = new_figure(NAME, {}, trials={"aa": [], "power": []})
    with tempfile.TemporaryDirectory(prefix="perflab-commands-") as directory:
        binary, n = split_program(Path(directory), args.work)
        m, sized_from = slowed(binary, n, args.slowdown)
        figure["settings"] = {
            "work_s": args.work,
            "n": n,
            "m": m,
            "slowdown": args.slowdown,
            "sized_from": sized_from,
            "command": f"perflab run --command 'split N' --command 'split M' --json out.json "
            f"{' '.join(_cli.timing_options(args))}",
        }
        for kind, trials, other in (("aa", args.aa, n), ("power", args.power, m)):
            for trial in range(trials):
                started = time.monotonic()
                run = compare_commands(
                    f"{binary} {n}", f"{binary} {other}", Path(directory) / "out.json", *_cli.timing_options(args)
                )
                summary = run.summary("B")
                summary["trial_s"] = round(time.monotonic() - started, 2)
                figure["trials"][kind].append(summary)
                print(trial_line(f"{kind} trial {trial + 1:3d}", summary), flush=True)
    return finish(NAME, figure, _summarize, _print)


def _summarize(figure: dict) -> None:
    aa, power = figure["trials"]["aa"], figure["trials"]["power"]
    false = sum(t["verdict"] != NO_DIFFERENCE for t in aa)
    detected = sum(t["verdict"] == SLOWER for t in power)
    figure["summary"] = {
        "aa": {"trials": len(aa), "false_verdicts": false, "rate_ci": binomial_interval(false, len(aa))},
        "power": {
            "trials": len(power),
            "detected": detected,
            "rate_ci": binomial_interval(detected, len(power)),
            "ratio": quantiles([t["ratio"] for t in power]) if power else None,
            "wall_s": quantiles([t["wall_s"] for t in power]) if power else None,
        },
    }


def _print(figure: dict) -> None:
    settings, summary = figure["settings"], figure["summary"]
    print(f"\n{settings['command']} (N = {settings['n']}, about {settings['work_s'] * 1e3:g} ms a run)")
    aa = summary["aa"]
    print(
        f"A/A: {aa['false_verdicts']}/{aa['trials']} trials declared a difference "
        f"(95% CI {aa['rate_ci'][0]:.1%}-{aa['rate_ci'][1]:.1%}; target <= 1%)"
    )
    power = summary["power"]
    if power["trials"]:
        print(
            f"power at {settings['slowdown']:.0%} (M sized from start-up {settings['sized_from']['start_up_s'] * 1e3:.2f} ms "
            f"and a whole run {settings['sized_from']['whole_s'] * 1e3:.2f} ms; "
            f"median measured {power['ratio']['median']:.3f}): {power['detected']}/{power['trials']} 'slower' "
            f"(95% CI {power['rate_ci'][0]:.0%}-{power['rate_ci'][1]:.0%}; target >= 80%), "
            f"median {power['wall_s']['median']:.1f} s per trial"
        )
    print(f"load average at start {format_load(figure['start'])}, at end {format_load(figure['end'])}")


if __name__ == "__main__":
    raise SystemExit(main())
