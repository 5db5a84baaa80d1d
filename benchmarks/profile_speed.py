"""Figure: how long the profiles of a comparison take, and how precise their shares are, before and after.

What ``perflab compare BENCH --html`` does after timing, run through the same API
(perflab.profile.pairing) on every declared case and contender of ``--benchmark``:

- before: every contender profiled in a pair with the reference (the reference profiled again for
  each contender), 5 alternating rounds, 2,000 samples per side at 200 Hz (the former default);
- after: perflab's defaults: each case's sides profiled together (the reference once per case),
  DEFAULT_RUNS (8) alternating rounds of one run per side (more while a side's shares are less
  precise than the budget promises: ProfileSettings.share_precision), 2,000 samples per side at
  DEFAULT_RATE[OWN_CPU] Hz when a CPU is spare (perflab.profile.spare_cpu).
Both pin the worker and py-spy to different CPUs and size each round by the samples per second
the side achieved (this tree's session code), so "before" is the former budget, rate and pairing,
not the former code: for that, time ``perflab compare json_dumps --html r.html`` on both commits.

The two settings alternate case by case (before, after on one case; after, before on the next) so
that a drift of the machine hits both alike. For each, the wall time of the profiling, and the
precision of every side's shares: the half-width of the 95% interval of each frame's total share
(perflab.profile.shares), over the frames with a share of at least 5% (the frames a reader looks
at). Printed and written to benchmarks/results/profile_speed.json with the load averages.

    python benchmarks/profile_speed.py                                  # json_dumps, every case
    python benchmarks/profile_speed.py --case NESTED --samples 400      # one case
    python benchmarks/profile_speed.py --quick                          # smoke run: NESTED, 2 sides, 100 samples

Target: after <= 1/3 of before's wall time, with half-widths no wider (median and 95th percentile).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, format_load, machine, quantiles

from perflab import builtins
from perflab.bench.protocol import describe_job
from perflab.measure.launcher import run_job
from perflab.measure.sides import contender_sides
from perflab.profile.pairing import profile_group
from perflab.profile.settings import DEFAULT_RATE, OWN_CPU, ProfileSettings
from perflab.profile.shares import frame_shares

NAME = "profile_speed"
SHOWN_SHARE = 0.05  # frames from this total share on are the ones whose precision is reported
BEFORE_RATE = 200


def half_widths(profile) -> list[float]:
    return [
        (share.total.high - share.total.low) / 2
        for share in frame_shares(profile.runs)
        if share.total.value >= SHOWN_SHARE
    ]


def profile_before(sides, case: str, samples: int, benchmark: str) -> dict:
    settings = ProfileSettings(samples=samples, rate=BEFORE_RATE, min_runs=5, adaptive_rounds=False)
    started, widths, runs = time.monotonic(), [], 0
    for other in sides[1:]:
        for outcome in profile_group([sides[0], other], case, settings, benchmark).values():
            widths += half_widths(outcome.profile)
            runs += len(outcome.profile.runs)
    return {"seconds": time.monotonic() - started, "half_widths": widths, "runs": runs}


def profile_after(sides, case: str, samples: int, benchmark: str) -> dict:
    settings = ProfileSettings(samples=samples)  # perflab's defaults: rate, runs, adaptive rounds
    started, widths, runs = time.monotonic(), [], 0
    outcomes = profile_group(sides, case, settings, benchmark)
    seconds = time.monotonic() - started
    for name, outcome in outcomes.items():
        # Each contender's diff uses the reference's profile: count it once per contender, as before.
        copies = len(sides) - 1 if name == sides[0].name else 1
        widths += half_widths(outcome.profile) * copies
        runs += len(outcome.profile.runs)
    return {"seconds": seconds, "half_widths": widths, "runs": runs}


def main() -> None:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--benchmark", default="json_dumps", help="a built-in (default json_dumps)")
    arguments.add_argument("--case", action="append", help="only these cases (default all declared)")
    arguments.add_argument("--samples", type=int, default=2000, help="samples per side (default 2000)")
    arguments.add_argument(
        "--sides", type=int, default=None, help="the reference and the next SIDES - 1 contenders only (default all)"
    )
    args = _cli.parse(arguments, case=["NESTED"], samples=100, sides=2)
    file = str(builtins.path_of(args.benchmark))
    described = run_job(describe_job(file, []), 60).of("describe")[0]
    contenders = [described["reference"]] + [c for c in described["contenders"] if c != described["reference"]]
    sides = contender_sides(file, contenders[: args.sides], sys.executable)
    figure = {
        "figure": NAME,
        "machine": machine(),
        "conditions_start": conditions(),
        "how": __doc__,
        "benchmark": args.benchmark,
        "samples": args.samples,
        "rates": {"before": BEFORE_RATE, "after": DEFAULT_RATE[OWN_CPU]},
        "cases": {},
    }
    totals = {"before": {"seconds": 0.0, "half_widths": []}, "after": {"seconds": 0.0, "half_widths": []}}
    for index, case in enumerate(args.case or described["cases"]):
        order = ("before", "after") if index % 2 == 0 else ("after", "before")
        measured = {}
        for which in order:
            run = profile_before if which == "before" else profile_after
            measured[which] = run(sides, case, args.samples, args.benchmark)
            totals[which]["seconds"] += measured[which]["seconds"]
            totals[which]["half_widths"] += measured[which]["half_widths"]
        figure["cases"][case] = measured
        print(
            f"{case:12s} "
            + "  ".join(
                f"{w}: {m['seconds']:5.1f} s, {m['runs']} runs, half-width median "
                f"{statistics.median(m['half_widths']) * 100:.2f} pp"
                for w, m in measured.items()
                if m["half_widths"]
            )
        )
    figure["conditions_end"] = conditions()
    for total in totals.values():
        total["half_width_quantiles"] = quantiles(total["half_widths"])
    figure["totals"] = totals
    before, after = totals["before"], totals["after"]
    print(
        f"profiling {args.benchmark} ({len(sides)} sides, {args.samples} samples per side): "
        f"before {before['seconds']:.1f} s, after {after['seconds']:.1f} s "
        f"({after['seconds'] / before['seconds']:.2f} of before)"
    )
    for which, total in totals.items():
        q = total["half_width_quantiles"]
        print(
            f"  {which}: half-width of frames' total shares >= {SHOWN_SHARE:.0%}: median {q['median'] * 100:.2f} pp, "
            f"95th percentile {q['p95'] * 100:.2f} pp, max {q['max'] * 100:.2f} pp ({len(total['half_widths'])} shares)"
        )
    print(
        f"load average {format_load(figure['conditions_start'])} at the start, "
        f"{format_load(figure['conditions_end'])} at the end"
    )
    _cli.written(_cli.write_figure(NAME, figure))


if __name__ == "__main__":
    main()
