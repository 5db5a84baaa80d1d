"""Figure: ``perflab compare --rev A --rev B`` on two revisions of a small git repository.

The script makes a git repository (in a temporary directory) with a module ``mylib.py`` whose
``encode(obj)`` is json.dumps of pyperformance's NESTED object followed by ``pad()``, a busy loop
of ``BUSY`` iterations, and a benchmark file ``bench.py`` that imports it. Three commits:

- ``v1``: ``BUSY = 0``;
- ``v1-docs``: the same code, only a comment changed (A/A: identical revisions);
- ``v2-slow``: ``BUSY`` calibrated (as in benchmarks/power.py: minimum of alternating short
  batches in this process) to add ``--slowdown`` (5%) to a call.

Each trial runs ``perflab compare bench.py --rev v1 --rev OTHER --no-fuzz --json out.json
--max-time T`` (each revision in its own worktree, its mylib imported from there). An A/A trial
(OTHER = v1-docs) with any verdict but "no detectable difference" is a false positive; a slowdown
trial (OTHER = v2-slow) detects the slowdown when its verdict is "slower". Trials alternate
between the two kinds, so both see the same machine conditions. Printed and written to
benchmarks/results/compare_revisions.json (rewritten after every trial, so a stopped run keeps
its data), with exact (Clopper-Pearson) 95% intervals and the load averages.

    python benchmarks/compare_revisions.py                              # 60 A/A + 30 slowdown trials
    python benchmarks/compare_revisions.py --quick                      # smoke run: 1 slowdown trial of 2 rounds, no A/A trial

Targets: false faster/slower verdicts <= 1% of A/A trials; "slower" in >= 80% of slowdown trials.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import _cli
from _common import (
    binomial_interval,
    conditions,
    finish,
    format_load,
    new_figure,
    perflab_json,
    quantiles,
    save_progress,
    trial_numbers,
    verdict_counts,
)
from power import injected_slowdown

NAME = "compare_revisions"
NO_DIFFERENCE, SLOWER = "no detectable difference", "slower"

MYLIB = '''"""A tiny library whose encode() the benchmark measures (@NOTE@)."""
import json

BUSY = @BUSY@


def pad():
    for _ in range(BUSY):
        pass


def encode(obj):
    text = json.dumps(obj)
    pad()
    return text
'''

BENCH = """import perflab
import mylib

from perflab.builtins.json_dumps import NESTED_DATA

bench = perflab.Benchmark("mylib", description="mylib.encode across revisions", compare="exact")


@bench.case
def NESTED():
    return dict(NESTED_DATA)


@bench.contender
def encode(obj):
    return mylib.encode(obj)
"""


def make_repository(directory: Path, busy: int) -> None:
    """Commits v1, v1-docs (same code) and v2-slow (``busy`` iterations in pad), tagged."""
    git = init_repository(directory)
    for tag, note, iterations in (
        ("v1", "first version", 0),
        ("v1-docs", "documented", 0),
        ("v2-slow", "slower", busy),
    ):
        write_mylib(directory, note, iterations)
        git("add", "-A")
        git("commit", "-qm", tag)
        git("tag", tag)


def init_repository(directory: Path):
    """A new git repository holding bench.py; returns ``git(*args)`` run in it (also for bisect_cost.py)."""
    git = lambda *args: subprocess.run(["git", "-C", str(directory), *args], check=True, capture_output=True)
    git("init", "-q")
    git("config", "user.email", "figure@example.com")
    git("config", "user.name", "figure")
    (directory / "bench.py").write_text(BENCH)
    return git


def write_mylib(directory: Path, note: str, busy: int) -> None:
    """mylib.py with ``busy`` iterations in pad(); ``note`` only changes its docstring."""
    (directory / "mylib.py").write_text(MYLIB.replace("@NOTE@", note).replace("@BUSY@", str(busy)))


def run_compare(bench: Path, other: str, out: Path, timing: list[str]) -> dict:
    run = perflab_json(["compare", str(bench), "--rev", "v1", "--rev", other, "--no-fuzz", "--no-store", *timing], out)
    result, ratio = run.result, run.comparison(other)["comparison"]["ratio"]
    return {
        "kind": "A/A" if other == "v1-docs" else "slowdown",
        "verdict": run.comparison(other)["verdict"],
        "ratio": float(ratio["value"]),
        "ratio_ci": [float(ratio["low"]), float(ratio["high"])],
        "rounds": max(len(c["runs"]) for c in result["cells"]),
        "wall_s": round(run.wall, 2),
        "loops": {c["contender"]: c["loops"] for c in result["cells"]},
        "load_average": conditions()["load_average"],
        "settings": result["settings"],
    }


def summarize(figure: dict) -> None:
    aa = [t for t in figure["trials"] if t["kind"] == "A/A"]
    slow = [t for t in figure["trials"] if t["kind"] == "slowdown"]
    false = sum(1 for t in aa if t["verdict"] != NO_DIFFERENCE)
    detected = sum(1 for t in slow if t["verdict"] == SLOWER)
    figure["summary"] = {
        "aa_trials": len(aa),
        "aa_false_verdicts": false,
        "aa_false_rate": false / len(aa) if aa else None,
        "aa_false_rate_ci95_clopper_pearson": binomial_interval(false, len(aa)),
        "aa_verdicts": verdict_counts(aa),
        "aa_ratio": quantiles([t["ratio"] for t in aa]),
        "slowdown_trials": len(slow),
        "slowdown_detected": detected,
        "detection_rate": detected / len(slow) if slow else None,
        "detection_rate_ci95_clopper_pearson": binomial_interval(detected, len(slow)),
        "slowdown_verdicts": verdict_counts(slow),
        "slowdown_ratio": quantiles([t["ratio"] for t in slow]),
        "wall_s": quantiles([t["wall_s"] for t in figure["trials"]]),
        "load_average_during_trials": quantiles([t["load_average"][0] for t in figure["trials"]]),
        "targets": {"aa_false_rate": "<= 1%", "detection_rate": ">= 80%"},
    }


def print_figure(figure: dict) -> None:
    s, c = figure["summary"], figure["calibration"]
    print(
        f"\n{NAME}: perflab compare --rev v1 --rev OTHER (--max-time {figure['settings']['max_time']:g}, "
        f"--no-fuzz, other settings default), {figure['start']['utc']}"
    )
    print(
        f"  load average at start {format_load(figure['start'])}, at end {format_load(figure['end'])}; "
        f"1-min load during trials median {s['load_average_during_trials'].get('median', 0):.2f}"
    )
    print(
        f"  A/A (v1 vs v1-docs, identical code): {s['aa_false_verdicts']}/{s['aa_trials']} false verdicts "
        f"= {s['aa_false_rate'] or 0:.1%} (95% CI {s['aa_false_rate_ci95_clopper_pearson'][0]:.1%}-"
        f"{s['aa_false_rate_ci95_clopper_pearson'][1]:.1%}); target <= 1%; verdicts {s['aa_verdicts']}"
    )
    print(
        f"  injected slowdown: {c['busy_iterations']} busy-loop iterations in mylib.pad, "
        f"{c['slowdown_at_calibration']:.2%} at calibration, median measured ratio "
        f"{s['slowdown_ratio'].get('median', float('nan')):.3f}"
    )
    print(
        f"  detected as slower: {s['slowdown_detected']}/{s['slowdown_trials']} = {s['detection_rate'] or 0:.0%} "
        f"(95% CI {s['detection_rate_ci95_clopper_pearson'][0]:.0%}-"
        f"{s['detection_rate_ci95_clopper_pearson'][1]:.0%}); target >= 80%; verdicts {s['slowdown_verdicts']}"
    )
    print(f"  wall time per trial: median {s['wall_s'].get('median', 0):.1f} s")


@contextlib.contextmanager
def revisions(slowdown: float, figure: dict) -> Iterator[Path]:
    """While inside: make_repository()'s repository, with the slowdown calibrated into v2-slow
    (and recorded in the figure); also for check_gate.py."""
    figure["calibration"] = injected_slowdown(slowdown, None, over_empty_loop=True)
    with tempfile.TemporaryDirectory(prefix="perflab-figure-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        make_repository(repo, figure["calibration"]["busy_iterations"])
        yield repo


def add_trial_kinds(arguments: argparse.ArgumentParser, aa: int, slow: int) -> None:
    """--aa-trials and --slow-trials (also for check_gate.py)."""
    _cli.add_trials(arguments, aa, "A/A trials", flag="--aa-trials")
    _cli.add_trials(arguments, slow, "slowdown trials", flag="--slow-trials")


def main() -> int:
    arguments = _cli.parser(__doc__)
    add_trial_kinds(arguments, 60, 30)
    _cli.add_timing(arguments, 15.0, precision=False)
    _cli.add_slowdown(arguments, 5.0)
    _cli.add_name(arguments, NAME)
    _cli.add_budget(arguments)
    # A smoke run compares v2-slow only: an A/A trial is the same comparison of another revision.
    args = _cli.parse(arguments, aa_trials=0, slow_trials=1, max_time=60.0)
    timing = _cli.timing_options(args)  # a smoke run stops after 2 rounds, not at --max-time
    settings = {
        "max_time": args.max_time,
        "slowdown_percent": args.slowdown,
        "aa_trials": args.aa_trials,
        "slow_trials": args.slow_trials,
        "command": f"perflab compare bench.py --rev v1 --rev OTHER --no-fuzz --no-store --json out.json {' '.join(timing)}",
    }
    figure = new_figure(NAME, settings, trials=[])
    plan = ["v1-docs"] * args.aa_trials + ["v2-slow"] * args.slow_trials
    # interleave the kinds: every third trial is a slowdown trial while both remain
    order = sorted(
        range(len(plan)),
        key=lambda i: i if plan[i] == "v1-docs" else (i - args.aa_trials) * args.aa_trials / max(args.slow_trials, 1),
    )
    with revisions(args.slowdown, figure) as repo:
        for number in trial_numbers(len(order), args.budget, figure):
            trial = run_compare(repo / "bench.py", plan[order[number]], repo.parent / "out.json", timing)
            figure["trials"].append(trial)
            print(
                f"trial {number + 1}/{len(plan)} {trial['kind']:8} {trial['verdict']:26} ratio {trial['ratio']:.3f} "
                f"[{trial['ratio_ci'][0]:.3f}, {trial['ratio_ci'][1]:.3f}] rounds {trial['rounds']} "
                f"load {trial['load_average'][0]:.1f}",
                flush=True,
            )
            save_progress(args.name, figure, summarize)
    return finish(args.name, figure, summarize, print_figure)


if __name__ == "__main__":
    sys.exit(main())
