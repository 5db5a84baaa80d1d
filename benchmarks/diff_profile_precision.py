"""Figure: how much of a measured slowdown the differential profile attributes to the function slowed.

The repository of benchmarks/compare_revisions.py (``mylib.encode`` = json.dumps of the NESTED
object, then ``pad()``, a busy loop of ``BUSY`` iterations) gets a revision per injected slowdown
(``--slowdowns``, calibrated as in benchmarks/power.py), so the only code that changes is
``pad``. Each trial is what ``perflab compare bench.py --rev v1 --rev vN --html report.html``
does, run in-process through the same API (perflab.measure.ab_test with perflab.profile.side_profiles's profiling
hook, since the differential profile is not part of the JSON results): time both revisions,
then profile both in alternating rounds (default budget: 2000 samples per side, py-spy) and diff
the call trees. The figure per trial: (difference in ``pad``'s time per call) / (difference in the
operation's time per call), with the operation's times from the timing phase (what the report
shows), and, for comparison, with the times measured while profiling. Printed and written to
benchmarks/results/diff_profile_precision.json with the load averages.

    python benchmarks/diff_profile_precision.py                         # 6 trials per slowdown
    python benchmarks/diff_profile_precision.py --quick                 # smoke run: 1 trial at 25%

Target: >= 80% of the measured difference attributed to pad.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import _cli
from _common import conditions, finish, format_load, new_figure, quantiles, save_progress, verdict_counts
from compare_revisions import init_repository, write_mylib
from power import injected_slowdown
from rich.console import Console

from perflab.measure import ab_test
from perflab.measure.settings import Settings
from perflab.profile.diff import diff_profiles
from perflab.profile.settings import ProfileSettings
from perflab.profile.side_profiles import Profiler

NAME = "diff_profile_precision"
TARGET = 0.80


def make_repository(directory: Path, revisions: dict[str, int]) -> None:
    git = init_repository(directory)
    for tag, iterations in revisions.items():
        write_mylib(directory, tag, iterations)
        git("add", "-A")
        git("commit", "-qm", tag, "--allow-empty")
        git("tag", tag)


def pad_share(diff) -> float:
    pad = sum(
        n.difference.value
        for path, n in diff.nodes.items()
        if path and n.name == "pad" and not any(p.startswith("pad ") for p in path[:-1])
    )
    return pad / diff.operation.difference.value


def trial(bench: Path, tag: str, settings: Settings, samples: int, err: Console) -> dict:
    hook = Profiler(
        ProfileSettings(samples=samples, min_runs=5, timeout=settings.timeout),
        on_progress=lambda message: err.print(message, markup=False, highlight=False),
    )
    request = ab_test.Request(bench, settings, revisions=["v1", tag], fuzz_examples=0, after_timing=hook)
    result = ab_test.compare(request, _Quiet())
    entry = hook.profiles[0]
    timed = entry.diff
    profiled = diff_profiles(entry.reference_profile, entry.other_profile, (entry.reference, entry.other))
    comparison = result.comparisons[0]
    return {
        "revision": tag,
        "verdict": comparison.verdict,
        "ratio": comparison.comparison.ratio.value,
        "ratio_ci": [comparison.comparison.ratio.low, comparison.comparison.ratio.high],
        "difference_s": timed.operation.difference.value,
        "attributed_to_pad": pad_share(timed),
        "attributed_to_pad_profiled_times": pad_share(profiled),
        "explain": timed.explain(),
        "samples": [entry.reference_profile.samples, entry.other_profile.samples],
        "sampler": entry.reference_profile.metadata.get("sampler"),
        "load_average": conditions()["load_average"],
    }


class _Quiet:
    def update(self, status) -> None:
        pass


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 6, "trials per slowdown")
    arguments.add_argument("--slowdowns", default="5,25", help="injected slowdowns in percent (default 5,25)")
    arguments.add_argument("--samples", type=int, default=2000, help="profile samples per side (default 2000)")
    _cli.add_timing(arguments, 10.0, precision=False)
    args = _cli.parse(arguments, trials=1, slowdowns="25", samples=100, max_time=60.0)
    err = Console(stderr=True, quiet=True)
    settings = {
        "trials": args.trials,
        "samples_per_side": args.samples,
        "max_time": args.max_time,
        "profiling": "5 alternating rounds per side, py-spy, Python frames",
    }
    figure = new_figure(NAME, settings, calibration={}, trials=[])
    revisions = {"v1": 0}
    for percent in (float(p) for p in args.slowdowns.split(",")):
        calibration = injected_slowdown(percent, None, over_empty_loop=True)
        revisions[f"slow{percent:g}"] = calibration["busy_iterations"]
        figure["calibration"][f"slow{percent:g}"] = {"percent": percent, **calibration}
    timing = Settings(max_time=args.max_time, precision=0.01)
    if args.quick:  # as _cli.timing_options's smoke runs: 2 rounds of 5 short values, not a --max-time
        timing = Settings(
            max_time=args.max_time, precision=0.01, values=5, value_time=0.002, min_rounds=2, max_rounds=2
        )
    with tempfile.TemporaryDirectory(prefix="perflab-figure-") as tmp:
        repo = Path(tmp)
        make_repository(repo, revisions)
        for number in range(args.trials):
            for tag in list(revisions)[1:]:
                started = time.monotonic()
                result = trial(repo / "bench.py", tag, timing, args.samples, err)
                result["wall_s"] = round(time.monotonic() - started, 1)
                figure["trials"].append(result)
                print(
                    f"{tag:8} trial {number + 1}: ratio {result['ratio']:.3f}, pad holds "
                    f"{result['attributed_to_pad']:.0%} of the difference "
                    f"({result['attributed_to_pad_profiled_times']:.0%} with profiled times), "
                    f"{result['wall_s']:.0f} s, load {result['load_average'][0]:.1f}",
                    flush=True,
                )
                save_progress(NAME, figure, summarize)
    return finish(NAME, figure, summarize, print_figure)


def summarize(figure: dict) -> None:
    summary = {}
    for tag in dict.fromkeys(t["revision"] for t in figure["trials"]):
        trials = [t for t in figure["trials"] if t["revision"] == tag]
        shares = [t["attributed_to_pad"] for t in trials]
        summary[tag] = {
            "trials": len(trials),
            "attributed_to_pad": quantiles(shares),
            "attributed_to_pad_median": statistics.median(shares),
            "trials_at_least_80_percent": sum(1 for s in shares if s >= TARGET),
            "attributed_to_pad_profiled_times": quantiles([t["attributed_to_pad_profiled_times"] for t in trials]),
            "ratio": quantiles([t["ratio"] for t in trials]),
            "verdicts": verdict_counts(trials),
        }
    summary["load_average_during_trials"] = quantiles([t["load_average"][0] for t in figure["trials"]])
    summary["target"] = ">= 80% of the measured difference attributed to pad"
    figure["summary"] = summary


def print_figure(figure: dict) -> None:
    s = figure["summary"]
    print(
        f"\n{NAME}: share of the measured difference the differential profile attributes to the slowed "
        f"function (pad), {figure['start']['utc']}"
    )
    print(f"  load average at start {format_load(figure['start'])}, at end {format_load(figure['end'])}")
    for tag, c in figure["calibration"].items():
        t = s[tag]
        print(
            f"  {c['percent']:g}% slowdown ({c['busy_iterations']} iterations): median ratio "
            f"{t['ratio']['median']:.3f}; pad holds median {t['attributed_to_pad_median']:.0%} "
            f"(range {t['attributed_to_pad']['min']:.0%}-{t['attributed_to_pad']['max']:.0%}) of the difference; "
            f"{t['trials_at_least_80_percent']}/{t['trials']} trials >= 80%; with times measured while profiling: "
            f"median {t['attributed_to_pad_profiled_times']['median']:.0%}"
        )


if __name__ == "__main__":
    sys.exit(main())
