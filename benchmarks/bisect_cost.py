"""Figure: what ``perflab bisect`` costs on a 64-commit history with one 5% regression, and whether it is right.

Each trial makes a git repository (in a temporary directory) with compare_revisions.py's ``mylib.py``
(``encode(obj)`` = json.dumps of pyperformance's NESTED object, then ``pad()``, a busy loop of
``BUSY`` iterations) and ``bench.py``: a good commit (``BUSY = 0``) and ``--commits`` (64) commits
after it. Most of them change only mylib's docstring or an unrelated file (NOTES.txt); one, at a
position drawn at random per trial (``--seed``), sets ``BUSY`` to the iteration count calibrated once,
as in benchmarks/power.py, to add ``--slowdown`` (5%) to a call. The trial then runs the real

    perflab bisect --good GOOD --bad HEAD bench.py --json out.json --max-time T

and records the measurements it used (each one good, the middle commit and bad timed interleaved,
re-measurements included), whether the commit it reported is the injected one (and how many
commits off if not), whether bisect called its answer certain, each step's verdict against the
truth, the wall time and the load averages. Printed and written to benchmarks/results/bisect_cost.json
(rewritten after every trial, so a stopped run keeps its data), with exact (Clopper-Pearson) 95%
intervals.

    python benchmarks/bisect_cost.py                          # 8 trials at --max-time 20
    python benchmarks/bisect_cost.py --quick                  # smoke run: 1 bisection of 2 commits, a 100% slowdown
    python benchmarks/bisect_cost.py --report                 # print the saved figure again

Target (issue 6): the first bad commit found, in about log2(N) + 2 = 8 measurements for N = 64.

A smoke run costs 11-14 CPU-seconds (quiet to loaded 2-core VM): its three measurements (confirmation, a search step, the check)
each need a verdict, so they run the stopping rule's 5 rounds of 2-3 worktrees' workers; 2 rounds
(--debug-rounds) left "no detectable difference" on a 1.9x slowdown, and the search unvisited.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _cli
from _common import (
    binomial_interval,
    conditions,
    finish,
    format_load,
    new_figure,
    quantiles,
    report_again,
    save_progress,
    trial_numbers,
)
from compare_revisions import init_repository, write_mylib
from power import injected_slowdown

NAME = "bisect_cost"


def make_history(directory: Path, commits: int, slow_at: int, busy: int) -> list[str]:
    """The good commit, then ``commits`` more; commit number ``slow_at`` (1-based) adds the busy loop.

    Returns the hashes, good first, so that index k is the k-th commit after good.
    """
    git = init_repository(directory)
    write_mylib(directory, "version 0", 0)
    git("add", "-A")
    git("commit", "-qm", "good: version 0")
    for number in range(1, commits + 1):
        current = busy if number >= slow_at else 0
        if number == slow_at:
            write_mylib(directory, f"version {number}", current)  # the regression (its docstring changes too)
        elif number % 2:
            write_mylib(directory, f"version {number}", current)  # a docstring-only change
        else:
            (directory / "NOTES.txt").write_text(f"notes of commit {number}\n")  # an unrelated file
        git("add", "-A")
        git("commit", "-qm", f"commit {number}")
    listed = subprocess.run(
        ["git", "-C", str(directory), "rev-list", "--reverse", "HEAD"], capture_output=True, text=True, check=True
    )
    return listed.stdout.split()


def run_trial(directory: Path, commits: int, slow_at: int, busy: int, timing: list[str]) -> dict:
    repo = directory / "repo"
    repo.mkdir()
    hashes = make_history(repo, commits, slow_at, busy)
    out = directory / "bisect.json"
    command = [
        sys.executable,
        "-m",
        "perflab",
        "bisect",
        "--good",
        hashes[0],
        "--bad",
        "HEAD",
        str(repo / "bench.py"),
        "--json",
        str(out),
        *timing,
    ]
    before = conditions()
    started = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - started
    trial = {
        "slow_at": slow_at,
        "injected": hashes[slow_at],
        "exit_code": completed.returncode,
        "wall_s": round(wall, 1),
        "load_average_start": before["load_average"],
        "load_average_end": conditions()["load_average"],
    }
    if completed.returncode != 0 or not out.exists():
        # e.g. the confirmation did not see the regression: bisect refused, nothing found
        trial.update(
            found=False,
            reported=None,
            offset=None,
            certain=False,
            measurements=None,
            error=(completed.stderr.strip().splitlines() or ["no output"])[-1][:300],
        )
        return trial
    outcome = json.loads(out.read_text())
    index = {commit: number for number, commit in enumerate(hashes)}
    reported = index[outcome["first_bad"]]
    steps = [
        {**step, "index": index[step["commit"]], "truly_bad": index[step["commit"]] >= slow_at}
        for step in outcome["steps"]
    ]
    trial.update(
        found=reported == slow_at,
        reported=reported,
        offset=reported - slow_at,
        certain=outcome["certain"],
        measurements=outcome["measurements"],
        confirmed_ratio=outcome["confirmed_ratio"],
        steps=steps,
        wrong_steps=sum(1 for s in steps if s["bad"] != s["truly_bad"]),
    )
    return trial


def _summarize(figure: dict) -> None:
    trials = figure["trials"]
    found = sum(1 for t in trials if t["found"])
    measured = [t["measurements"] for t in trials if t["measurements"] is not None]
    steps = [s for t in trials for s in t.get("steps", [])]
    target = math.log2(figure["settings"]["commits"]) + 2
    certain = [t for t in trials if t["certain"]]
    misled = [t for t in trials if any(s["bad"] != s["truly_bad"] for s in t.get("steps", []) if not s.get("check"))]
    figure["summary"] = {
        "trials": len(trials),
        "found": found,
        "hit_rate": found / len(trials) if trials else None,
        "hit_rate_ci95_clopper_pearson": binomial_interval(found, len(trials)),
        "refused": sum(1 for t in trials if t["measurements"] is None),
        "certain": len(certain),
        "found_when_certain": sum(1 for t in certain if t["found"]),
        "offsets_when_wrong": [t["offset"] for t in trials if not t["found"] and t["offset"] is not None],
        "measurements": quantiles(measured),
        "target_measurements": target,
        "within_target_measurements": sum(1 for m in measured if m <= target),
        "steps": len(steps),
        "wrong_steps": sum(1 for s in steps if s["bad"] != s["truly_bad"]),
        "uncertain_steps": sum(1 for s in steps if not s["certain"]),
        "wrong_uncertain_steps": sum(1 for s in steps if s["bad"] != s["truly_bad"] and not s["certain"]),
        "remeasured_steps": sum(1 for s in steps if s.get("attempts", 1) > 1),
        "check_steps": sum(1 for s in steps if s.get("check")),
        # A wrong search step used to be fatal; the final check (bisect.py) should recover from it.
        "trials_with_a_wrong_search_step": len(misled),
        "right_despite_a_wrong_search_step": sum(1 for t in misled if t["found"]),
        "measured_slowdown": quantiles([t["confirmed_ratio"]["value"] for t in trials if t.get("confirmed_ratio")]),
        "wall_s": quantiles([t["wall_s"] for t in trials]),
        "load_average_1min": quantiles(
            [t["load_average_start"][0] for t in trials] + [t["load_average_end"][0] for t in trials]
        ),
    }


def _print(figure: dict) -> None:
    s, settings = figure["summary"], figure["settings"]
    print()
    print(
        f"Bisect cost: {settings['commits']} commits after good, one adding a calibrated "
        f"{settings['slowdown_percent']:g}% slowdown at a random position (seed {settings['seed']}), "
        f"{s['trials']} trials"
    )
    print(f"  each trial: {settings['command']}")
    print(
        f"  injected: {figure['calibration']['busy_iterations']} busy-loop iterations, "
        f"{figure['calibration']['slowdown_at_calibration']:.2%} at calibration; machine "
        f"{figure['machine']['cpu_model']}, {figure['machine']['cpu_count']} CPUs, shared with other work"
    )
    print(
        f"  load average start {format_load(figure['start'])}, end {format_load(figure['end'])}; "
        f"1-min load during trials {s['load_average_1min'].get('min', 0):.1f}-{s['load_average_1min'].get('max', 0):.1f}"
    )
    if not s["trials"]:
        return
    low, high = s["hit_rate_ci95_clopper_pearson"]
    print(
        f"  right commit found: {s['found']}/{s['trials']} = {s['hit_rate']:.0%} (95% CI {low:.0%}-{high:.0%}); "
        f"bisect called its answer certain in {s['certain']} trials, right in {s['found_when_certain']} of them; "
        f"refused (no regression confirmed): {s['refused']}; offsets when wrong: {s['offsets_when_wrong']}"
    )
    m, w = s["measurements"], s["wall_s"]
    measured = [t for t in figure["trials"] if t["measurements"] is not None]
    if m:
        print(
            f"  measurements: median {m['median']:g}, max {m['max']:g} (target log2({settings['commits']}) + 2 = "
            f"{s['target_measurements']:g}; within it in {s['within_target_measurements']}/{len(measured)} bisections "
            f"that ran)"
        )
    print(
        f"  steps: {s['steps']}, wrong {s['wrong_steps']} (of which uncertain {s['wrong_uncertain_steps']}), "
        f"uncertain {s['uncertain_steps']}, re-measured {s['remeasured_steps']}"
    )
    print(
        f"  trials with a wrong search step: {s['trials_with_a_wrong_search_step']}, right in the end in "
        f"{s['right_despite_a_wrong_search_step']} (the final check re-opens the search); check steps {s['check_steps']}"
    )
    if s["measured_slowdown"]:
        print(
            f"  slowdown as bisect confirmed it (bad/good): median x{s['measured_slowdown']['median']:.3f}, "
            f"{s['measured_slowdown']['min']:.3f}-{s['measured_slowdown']['max']:.3f}"
        )
    print(f"  time per trial: median {w['median'] / 60:.1f} min, max {w['max'] / 60:.1f} min (wall)")


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 8, "bisections to run")
    arguments.add_argument("--commits", type=int, default=64, help="commits after the good one (default 64)")
    _cli.add_timing(arguments, 20.0, precision=False)
    _cli.add_slowdown(arguments, 5.0, iterations=True)
    arguments.add_argument("--seed", type=int, default=6, help="seed of the regression's positions (default 6)")
    _cli.add_budget(arguments)
    _cli.add_name(arguments, NAME)
    _cli.add_report(arguments)
    # A smoke run's measurements stop by perflab's rule at a loose precision, not at --max-time (a loaded
    # machine spent 3 s before a first round), on a slowdown large enough for each step's verdict.
    args = _cli.parse(arguments, trials=1, commits=2, max_time=60.0, slowdown=100.0)
    timing = _cli.timing_options(args, verdict=True)
    if args.report:
        return report_again(args.name, _summarize, _print)

    settings = {
        "trials": args.trials,
        "commits": args.commits,
        "max_time": args.max_time,
        "slowdown_percent": args.slowdown,
        "seed": args.seed,
        "command": f"perflab bisect --good GOOD --bad HEAD bench.py --json out.json {' '.join(timing)}",
    }
    figure = new_figure(
        NAME, settings, calibration=injected_slowdown(args.slowdown, args.iterations, over_empty_loop=True), trials=[]
    )
    positions = random.Random(args.seed)
    for number in trial_numbers(args.trials, args.budget, figure):
        slow_at = positions.randint(1, args.commits)
        with tempfile.TemporaryDirectory(prefix="perflab-bisect-cost-") as directory:
            trial = run_trial(Path(directory), args.commits, slow_at, figure["calibration"]["busy_iterations"], timing)
        figure["trials"].append(trial)
        verdict = (
            "right"
            if trial["found"]
            else f"WRONG ({trial['offset']:+d})"
            if trial["reported"] is not None
            else f"refused: {trial['error']}"
        )
        print(
            f"trial {number + 1}/{args.trials}: regression at commit {slow_at}, {verdict}, "
            f"{trial['measurements']} measurements, certain {trial['certain']}, {trial['wall_s'] / 60:.1f} min, "
            f"load {trial['load_average_start'][0]:.1f}-{trial['load_average_end'][0]:.1f}",
            flush=True,
        )
        save_progress(args.name, figure, _summarize)
    return finish(args.name, figure, _summarize, _print)


if __name__ == "__main__":
    sys.exit(main())
