"""Figure: the CI gate against a git revision, ``perflab check bench.py --against v1``.

The same repository as benchmarks/compare_revisions.py (``mylib.encode`` = json.dumps of
pyperformance's NESTED object, then ``pad()``, a busy loop): commits ``v1``, ``v1-docs`` (identical
code) and ``v2-slow`` (``pad`` calibrated as in benchmarks/power.py to add ``--slowdown``, default
10%, twice the gate's default threshold). Each trial checks out OTHER as the working tree and runs
the gate as a CI job would:

    perflab check bench.py --against v1 --no-store --max-time T     (threshold 5%, --confirm 1)

which measures v1 (in a worktree) and the working tree now, interleaved and paired, and exits 1
on a supported regression larger than 5%. An A/A trial (OTHER = v1-docs) that exits 1 is a false
alarm; a slowdown trial (OTHER = v2-slow) that exits 1 caught the regression. Kinds alternate, so
both see the same machine conditions. Printed and written to benchmarks/results/check_gate.json
after every trial, with exact (Clopper-Pearson) 95% intervals and the load averages.

    python benchmarks/check_gate.py                                    # 20 A/A + 20 slowdown trials
    python benchmarks/check_gate.py --quick                            # smoke run: 1 slowdown trial, no A/A trial
    python benchmarks/check_gate.py --report                           # print the saved figure
    python benchmarks/check_gate.py --aa-trials 80 --slow-trials 0 --name check_gate_aa   # more A/A

Targets (the gate's promise): no false alarm on identical code; a regression of twice the
threshold caught in >= 80% of trials.
"""

from __future__ import annotations

import json
import subprocess
import sys
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
    verdict_counts,
)
from compare_revisions import add_trial_kinds, revisions

NAME = "check_gate"


def run_check(repo: Path, other: str, timing: list[str]) -> dict:
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", other], check=True)
    outcome = repo.parent / "check.json"  # (outside the repository: no checkout touches it)
    outcome.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "perflab",
        "check",
        "bench.py",
        "--against",
        "v1",
        "--no-store",
        "--json",
        str(outcome),
        *timing,
    ]
    started = time.monotonic()
    completed = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    wall = time.monotonic() - started
    cells = json.loads(outcome.read_text())["cells"] if outcome.exists() else []
    if completed.returncode not in (0, 1) or len(cells) != 1:
        raise RuntimeError(
            f"{' '.join(command)} failed (exit {completed.returncode}, {len(cells)} cells): "
            f"{(completed.stdout + completed.stderr).strip()[-1500:]}"
        )
    # The time ratio current/baseline and its 95% interval, as check's JSON gives it (unbounded,
    # "inf", when a single round was measured, the budget spent on a loaded machine: "undecided").
    value, low, high = (float(cells[0]["comparison"]["ratio"][bound]) for bound in ("value", "low", "high"))
    return {
        "exit": completed.returncode,
        "verdict": cells[0]["verdict"],
        "change": value - 1,
        "change_ci": [low - 1, high - 1],
        "re_measured": "measuring again to confirm" in completed.stderr,
        "wall_s": round(wall, 2),
        "load_average": conditions()["load_average"],
    }


def run_trials(repo: Path, plan: list[str], kinds: dict[str, str], timing: list[str], figure: dict, summarize) -> None:
    """One check per revision of ``plan`` (its kind: ``kinds[revision]``), each appended to the
    figure, saved and printed as it ends (also for qualify_floor.py)."""
    for number, other in enumerate(plan, 1):
        trial = {"kind": kinds[other], **run_check(repo, other, timing)}
        figure["trials"].append(trial)
        save_progress(figure["figure"], figure, summarize)
        print(
            f"trial {number}/{len(plan)} {trial['kind']}: exit {trial['exit']}, change {trial['change']:+.2%} "
            f"[{trial['change_ci'][0]:+.2%}, {trial['change_ci'][1]:+.2%}] {trial['verdict']}, "
            f"{trial['wall_s']:.0f} s, load {trial['load_average'][0]:.1f}",
            flush=True,
        )


def summarize(figure: dict) -> None:
    aa = [t for t in figure["trials"] if t["kind"] == "A/A"]
    slow = [t for t in figure["trials"] if t["kind"] == "slowdown"]
    false = sum(1 for t in aa if t["exit"] == 1)
    caught = sum(1 for t in slow if t["exit"] == 1)
    figure["summary"] = {
        "aa_trials": len(aa),
        "aa_false_alarms": false,
        "aa_false_alarm_ci95_clopper_pearson": binomial_interval(false, len(aa)),
        "aa_change": quantiles([t["change"] for t in aa]),
        "aa_verdicts": verdict_counts(aa),
        "slowdown_trials": len(slow),
        "slowdown_caught": caught,
        "caught_ci95_clopper_pearson": binomial_interval(caught, len(slow)),
        "slowdown_change": quantiles([t["change"] for t in slow]),
        "slowdown_verdicts": verdict_counts(slow),
        "re_measured": sum(1 for t in figure["trials"] if t["re_measured"]),
        "wall_s": quantiles([t["wall_s"] for t in figure["trials"]]),
        "load_average_during_trials": quantiles([t["load_average"][0] for t in figure["trials"]]),
        "targets": {"aa_false_alarms": "0", "caught": ">= 80%"},
    }


def show(figure: dict) -> None:
    s, c = figure["summary"], figure["calibration"]
    aa_ci, caught_ci = s["aa_false_alarm_ci95_clopper_pearson"], s["caught_ci95_clopper_pearson"]
    print(f"\n{figure['figure']}: {figure['settings']['command']}, {figure['start']['utc']}")
    print(
        f"  load average at start {format_load(figure['start'])}, at end {format_load(figure.get('end', figure['start']))}; "
        f"1-min load during trials median {s['load_average_during_trials'].get('median', 0):.2f}"
    )
    print(
        f"  identical code (v1-docs): {s['aa_false_alarms']}/{s['aa_trials']} false alarms (exit 1; 95% CI "
        f"{aa_ci[0]:.0%}-{aa_ci[1]:.0%}); median change {s['aa_change'].get('median', 0):+.2%}; verdicts {s['aa_verdicts']}"
    )
    if s["slowdown_trials"]:
        print(
            f"  injected slowdown: {c['busy_iterations']} busy-loop iterations, {c['slowdown_at_calibration']:.2%} at "
            f"calibration; median measured change {s['slowdown_change'].get('median', 0):+.2%}"
        )
        print(
            f"  regression caught (exit 1): {s['slowdown_caught']}/{s['slowdown_trials']} (95% CI {caught_ci[0]:.0%}-"
            f"{caught_ci[1]:.0%}); target >= 80%; verdicts {s['slowdown_verdicts']}"
        )
    print(
        f"  trials that re-measured before deciding: {s['re_measured']}; wall time per check: median "
        f"{s['wall_s'].get('median', 0):.0f} s"
    )


def main() -> int:
    arguments = _cli.parser(__doc__)
    add_trial_kinds(arguments, 20, 20)
    _cli.add_timing(arguments, 60.0)
    _cli.add_slowdown(arguments, 10.0)
    _cli.add_name(arguments, NAME)
    _cli.add_report(arguments)
    # A smoke run checks v2-slow only: an A/A trial is the same check of another revision.
    args = _cli.parse(arguments, aa_trials=0, slow_trials=1, max_time=30.0, precision=50.0)
    if args.report:
        return report_again(args.name, summarize, show)
    settings = {
        "max_time": args.max_time,
        "slowdown_percent": args.slowdown,
        "command": f"perflab check bench.py --against v1 --no-store {' '.join(_cli.timing_options(args))}",
    }
    figure = new_figure(args.name, settings, trials=[])
    kinds = ["v1-docs", "v2-slow"]
    plan = [kinds[i % 2] for i in range(2 * max(args.aa_trials, args.slow_trials))]
    plan = [
        k
        for i, k in enumerate(plan)
        if plan[: i + 1].count(k) <= (args.aa_trials if k == "v1-docs" else args.slow_trials)
    ]
    with revisions(args.slowdown, figure) as repo:
        run_trials(repo, plan, {"v1-docs": "A/A", "v2-slow": "slowdown"}, _cli.timing_options(args), figure, summarize)
    return finish(args.name, figure, summarize, show)


if __name__ == "__main__":
    sys.exit(main())
