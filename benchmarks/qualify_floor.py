"""Figure: does the floor ``perflab qualify`` states hold on this machine? Injected slowdowns just
above and just below it, checked at the qualified budget.

The repository of benchmarks/compare_revisions.py (``mylib.encode`` = json.dumps of pyperformance's
NESTED object, then ``pad()``, a busy loop). First, at ``v1``:

    perflab qualify bench.py --db DB --max-time T --precision P

which states the floor F on NESTED/encode: the smallest change ``check`` calls with 80% power at
that budget. Then busy loops are calibrated (as in benchmarks/power.py) to add ``--above`` x F
(default 1.5) and ``--below`` x F (default 0.5) to a call, committed as ``v2-above`` and
``v2-below`` beside ``v1-docs`` (identical code). Each trial checks one of them out and runs the
gate against v1 at the qualified budget, as benchmarks/check_gate.py does:

    perflab check bench.py --against v1 --no-store --max-time T --precision P

A slowdown is detected when check calls it slower (within the threshold or a regression); an A/A
trial (v1-docs) that calls any difference is a false verdict, and one that exits 1 a false alarm.
Kinds alternate, so all see the same machine conditions. Printed and written to
benchmarks/results/qualify_floor.json after every trial, with exact (Clopper-Pearson) 95% intervals
and the load averages.

    python benchmarks/qualify_floor.py          # qualify at 20 s, then 100 A/A + 30 above + 30 below
    python benchmarks/qualify_floor.py --quick  # smoke run: 1 trial above and 1 below the floor, 2 rounds

Targets (the floor's promise): detected above it in >= 80% of trials; below it, fewer (it is not
a loose bound); identical code failing the gate in <= 1% of trials. (A smoke run's 2 rounds state
a floor far above what a busy loop is calibrated to add: the injected slowdowns are capped at
MAX_INJECTED and the figure says so.)
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import _cli
from _common import binomial_interval, finish, format_load, new_figure, quantiles, verdict_counts
from check_gate import run_trials
from compare_revisions import init_repository, write_mylib
from power import injected_slowdown

from perflab.analysis.detectable import Floor, Qualification

NAME = "qualify_floor"
MAX_INJECTED = 0.30  # beyond this a floor is not a runner's (too few rounds): inject this much
DETECTED = ("slower, within threshold", "REGRESSION")
KINDS = {"v1-docs": "A/A", "v2-above": "above", "v2-below": "below"}


def qualified_floor(repo: Path, db: Path, timing: list[str]) -> tuple[Floor, Qualification]:
    """``perflab qualify`` at v1, and the floor it stored for NESTED/encode."""
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "v1"], check=True)
    command = [sys.executable, "-m", "perflab", "qualify", "bench.py", "--db", str(db), *timing]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    print(done.stdout, flush=True)
    with sqlite3.connect(db) as store:  # (the store's table of qualifications, docs/regression-guard.md)
        (stored,) = store.execute("SELECT qualification FROM qualifications ORDER BY created DESC LIMIT 1").fetchone()
    qualification = Qualification.from_json(json.loads(stored))
    floor = qualification.floor("NESTED", "encode")
    if floor is None:
        raise RuntimeError(f"{' '.join(command)} stored no floor for NESTED/encode")
    return floor, qualification


def injected(floor: Floor, factor: float) -> float:
    """The slowdown to inject: ``factor`` times the floor's change, at most MAX_INJECTED."""
    return min(factor * (floor.change - 1), MAX_INJECTED)


def commit_revisions(repo: Path, git, figure: dict) -> None:
    """v1-docs (identical code), then v2-above and v2-below with their calibrated busy loops."""
    write_mylib(repo, "documented", 0)
    git("commit", "-qam", "v1-docs")
    git("tag", "v1-docs")
    for tag in ("v2-above", "v2-below"):
        git("checkout", "-q", "v1")
        write_mylib(repo, tag, figure["calibration"][tag]["busy_iterations"])
        git("commit", "-qam", tag)
        git("tag", tag)


def summarize(figure: dict) -> None:
    trials = figure["trials"]
    summary: dict = {"load_average_during_trials": quantiles([t["load_average"][0] for t in trials])}
    for kind in KINDS.values():
        mine = [t for t in trials if t["kind"] == kind]
        detected = sum(t["verdict"].startswith(DETECTED) for t in mine)
        summary[kind] = {
            "trials": len(mine),
            "detected": detected,
            "detected_ci95_clopper_pearson": binomial_interval(detected, len(mine)),
            "failed_the_gate": sum(t["exit"] == 1 for t in mine),
            "change": quantiles([t["change"] for t in mine]),
            "verdicts": verdict_counts(mine),
        }
    summary["targets"] = {"above": "detected >= 80%", "below": "detected < above", "A/A": "failed the gate <= 1%"}
    figure["summary"] = summary


def show(figure: dict) -> None:
    s, floor = figure["summary"], figure["floor"]
    print(f"\n{figure['figure']}: {figure['settings']['command']}, {figure['start']['utc']}")
    print(
        f"  load average at start {format_load(figure['start'])}, at end {format_load(figure.get('end', figure['start']))}; "
        f"1-min load during trials median {s['load_average_during_trials'].get('median', 0):.2f}"
    )
    print(f"  stated floor on NESTED/encode: {floor['text']} ({floor['rounds']} rounds, noise {floor['noise']:.2%})")
    for kind, tag in (("above", "v2-above"), ("below", "v2-below")):
        calibrated = figure["calibration"][tag]
        low, high = s[kind]["detected_ci95_clopper_pearson"]
        print(
            f"  {kind} the floor ({calibrated['target']:.2%} injected, {calibrated['slowdown_at_calibration']:.2%} "
            f"at calibration{', capped' if calibrated['capped'] else ''}): detected {s[kind]['detected']}/"
            f"{s[kind]['trials']} (95% CI {low:.0%}-{high:.0%}); median measured change "
            f"{s[kind]['change'].get('median', 0):+.2%}; verdicts {s[kind]['verdicts']}"
        )
    aa = s["A/A"]
    print(
        f"  identical code (v1-docs): {aa['failed_the_gate']}/{aa['trials']} false alarms (exit 1), "
        f"{aa['detected']}/{aa['trials']} called slower; verdicts {aa['verdicts']}"
    )


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 100, "A/A trials", flag="--aa-trials")
    _cli.add_trials(arguments, 30, "trials of each injected slowdown", flag="--slow-trials")
    _cli.add_timing(arguments, 20.0)
    arguments.add_argument("--above", type=float, default=1.5, help="slowdown above the floor, x floor (default 1.5)")
    arguments.add_argument("--below", type=float, default=0.5, help="slowdown below the floor, x floor (default 0.5)")
    _cli.add_name(arguments, NAME)
    # A smoke run checks the injected slowdowns only: an A/A trial is the same check of another revision.
    args = _cli.parse(arguments, aa_trials=0, slow_trials=1, max_time=30.0, precision=50.0)
    timing = _cli.timing_options(args)
    settings = {
        "max_time": args.max_time,
        "precision_percent": args.precision,
        "command": f"perflab qualify bench.py, then perflab check bench.py --against v1 --no-store {' '.join(timing)}",
    }
    figure = new_figure(args.name, settings, trials=[], calibration={})
    with tempfile.TemporaryDirectory(prefix="perflab-figure-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git = init_repository(repo)
        write_mylib(repo, "first version", 0)
        git("add", "-A")
        git("commit", "-qm", "v1")
        git("tag", "v1")
        floor, qualification = qualified_floor(repo, Path(tmp) / "perflab.db", timing)
        figure["floor"] = {**floor.to_json(), "text": qualification.detects("NESTED", "encode", 0.05)}
        for tag, factor in (("v2-above", args.above), ("v2-below", args.below)):
            target = injected(floor, factor)
            calibration = injected_slowdown(100 * target, None, over_empty_loop=True)
            figure["calibration"][tag] = {
                **calibration,
                "target": target,
                "capped": target < factor * (floor.change - 1),
            }
        commit_revisions(repo, git, figure)
        counts = {"v1-docs": args.aa_trials, "v2-above": args.slow_trials, "v2-below": args.slow_trials}
        plan = [tag for i in range(max(counts.values())) for tag in KINDS if i < counts[tag]]
        run_trials(repo, plan, KINDS, timing, figure, summarize)
    return finish(args.name, figure, summarize, show)


if __name__ == "__main__":
    sys.exit(main())
