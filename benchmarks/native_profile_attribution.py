"""Figure: how well ``perflab profile --native-command`` (Linux perf) attributes a known split of work.

tests/native/split.cpp runs the same loop 3N times in split::heavy and N times in split::light, so
split::heavy holds 75% of the time the two spend. ``perflab profile --native-command 'split N'
--json p.json`` runs ``--trials`` times for each call graph (DWARF and frame pointers); each
trial reports heavy's share of heavy + light with the 95% interval perflab computes over its
profiling runs, and whether 75% lies in it. Printed and written to
benchmarks/results/native_profile_attribution.json with the load average.

    python benchmarks/native_profile_attribution.py                      # 10 trials per call graph
    python benchmarks/native_profile_attribution.py --quick              # smoke run: 1 small profile each

Target: the interval holds 75% in about 95% of trials, and the point is within 2 points of it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import _cli
from _common import binomial_interval, finish, format_load, new_figure, quantiles, report_again
from _native import split_program

from perflab.profile.model import Profile
from perflab.profile.shares import frame_shares

NAME = "native_profile_attribution"
EXPECTED = 0.75
HEAVY, LIGHT = "split::heavy (split)", "split::light (split)"


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 10, "profiles per call graph")
    arguments.add_argument("--samples", type=int, default=2000, help="perflab profile --samples (default 2000)")
    arguments.add_argument("--runs", type=int, default=5, help="perflab profile --runs (default 5)")
    _cli.add_work(arguments, 0.5)
    _cli.add_report(arguments)
    args = _cli.parse(arguments, trials=1, samples=100, runs=2, work=0.05)
    if args.report:
        return report_again(NAME, _summarize, _print)
    with tempfile.TemporaryDirectory(prefix="perflab-attribution-") as directory:
        binary, n = split_program(Path(directory), args.work)
        figure = new_figure(NAME, {"n": n, "work_s": args.work, "samples": args.samples, "runs": args.runs}, trials=[])
        out = Path(directory) / "p.json"
        for call_graph in ("dwarf", "fp"):
            for trial in range(args.trials):
                command = [
                    sys.executable, "-m", "perflab", "profile", "--native-command", f"{binary} {n}",
                    "--call-graph", call_graph, "--samples", str(args.samples), "--runs", str(args.runs),
                    "--json", str(out),
                ]  # fmt: skip
                subprocess.run(command, check=True, capture_output=True)
                share = _heavy_share(Profile.load(out))
                share["call_graph"] = call_graph
                figure["trials"].append(share)
                print(
                    f"{call_graph:5} trial {trial + 1:2d}: heavy {share['share']:.1%} "
                    f"[{share['low']:.1%}, {share['high']:.1%}] of heavy + light, {share['samples']} samples",
                    flush=True,
                )
    return finish(NAME, figure, _summarize, _print)


def _heavy_share(profile: Profile) -> dict:
    """heavy / (heavy + light) with a 95% interval from the per-run shares' intervals (the two are
    disjoint frames, so the interval of the quotient is taken from each run's quotient)."""
    per_run = []
    for run in profile.runs:
        totals = {share.frame: share.total_samples for share in frame_shares([run])}
        heavy, light = totals.get(HEAVY, 0), totals.get(LIGHT, 0)
        if heavy + light:
            per_run.append(heavy / (heavy + light))
    import numpy as np
    from scipy import stats

    mean = float(np.mean(per_run))
    half = float(stats.t.ppf(0.975, len(per_run) - 1) * np.std(per_run, ddof=1) / np.sqrt(len(per_run)))
    return {"share": mean, "low": mean - half, "high": mean + half, "runs": len(per_run), "samples": profile.samples}


def _summarize(figure: dict) -> None:
    figure["summary"] = {}
    for call_graph in ("dwarf", "fp"):
        trials = [t for t in figure["trials"] if t["call_graph"] == call_graph]
        covered = sum(t["low"] <= EXPECTED <= t["high"] for t in trials)
        figure["summary"][call_graph] = {
            "trials": len(trials),
            "covered": covered,
            "coverage_ci": binomial_interval(covered, len(trials)),
            "share": quantiles([t["share"] for t in trials]),
        }


def _print(figure: dict) -> None:
    settings = figure["settings"]
    print(
        f"\nperflab profile --native-command 'split {settings['n']}' (about {settings['work_s']:g} s a run), "
        f"--samples {settings['samples']} --runs {settings['runs']}; split::heavy does {EXPECTED:.0%} of the work"
    )
    for call_graph, row in figure["summary"].items():
        if row["trials"]:
            print(
                f"{call_graph:5}: heavy's share median {row['share']['median']:.1%} "
                f"[{row['share']['min']:.1%}-{row['share']['max']:.1%} over trials]; the 95% interval held "
                f"{EXPECTED:.0%} in {row['covered']}/{row['trials']} trials "
                f"(95% CI {row['coverage_ci'][0]:.0%}-{row['coverage_ci'][1]:.0%})"
            )
    print(f"load average at start {format_load(figure['start'])}, at end {format_load(figure['end'])}")


if __name__ == "__main__":
    raise SystemExit(main())
