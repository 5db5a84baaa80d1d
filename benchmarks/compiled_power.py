"""Figure: ``perflab check --against REF --build`` on a compiled project: does it catch a 5% slowdown
in C code across revisions, how often does it call two builds of one source different, and what
does it cost against the by-hand flow it replaces.

The tests' setuptools C extension (tests/support/compiled_projects.py: ``cspin.spin(n)``, a
volatile loop, in a git repository in a temporary directory), three commits:

- ``base``: the loop;
- ``same``: the same C (only a VERSION file differs), so a build of its own: A/A across two builds;
- ``slow``: the loop plus EXTRA iterations of it whose result is dropped, EXTRA calibrated as
  benchmarks/power.py calibrates its busy loop (_common.calibrate: min over alternating batches,
  on one CPU, in this process) to add ``--slowdown`` (5%) to ``spin(2000)``, timed on the base
  build: ``spin(2000 + k)`` against ``spin(2000)``, the same loop ``k`` iterations longer.

Each trial checks out ``same`` or ``slow`` (alternating, so both see the same machine) and runs
the gate as a CI job on a compiled project would:

    perflab check benchmarks/bench.py --against BASE --build --no-store --max-time T

A ``slow`` trial detects the slowdown when its verdict says slower (within the 5% threshold or a
regression); a ``same`` trial whose verdict is not "no detectable difference" is a false verdict.
One build cache serves the run: each revision is built once, by the calibration (base) or by its
first trial, so the first trial's wall time is ``check`` with a cold cache for its revision, and
the later ones ``check`` with both builds cached (CI keeping perflab's build folder).

Then the by-hand flow that docs/regression-guard.md documented for compiled projects before perflab
built them (``--by-hand-trials``), in its own clone: check out and install the base (``pip install
--target DIR .``, on the import path through PYTHONPATH), ``perflab run benchmarks/bench.py --json
base.json --no-store``, check out and install ``slow``, ``perflab check benchmarks/bench.py
--against base.json --no-store`` (unpaired), the same timing options: its wall time from the first
checkout to the verdict, and its verdict.

Printed and written to benchmarks/results/compiled_power.json after every trial: counts with exact
(Clopper-Pearson) 95% intervals, each trial's ratio, wall time and load average.

    python benchmarks/compiled_power.py           # 30 slow + 30 same trials, 5 by hand, --max-time 60
    python benchmarks/compiled_power.py --quick   # smoke run: 1 slow trial (no same) and 1 by hand, 2 rounds

A smoke run costs 13-20 CPU-seconds with uv on PATH (as in CI; about twice that without): two
builds (base, slow), the by-hand flow's two installs, and the checks of each path (a ``same``
trial is a ``slow`` one's check of another revision: a smoke run leaves it out).

Targets (issue 30): a 5% slowdown in C detected in >= 80% of trials; two builds of one source
called different rarely (the gate's default 1% at most, as benchmarks/check_gate.py's A/A).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import _cli
from _common import (
    binomial_interval,
    conditions,
    finish,
    format_load,
    injected_work,
    min_batch_slowdown,
    new_figure,
    perflab_json,
    quantiles,
    save_progress,
    verdict_counts,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.compiled_projects import SPIN_ARGUMENT, c_extension_repository  # (tests/ on the path: the tests' project)

from perflab.analysis.gate import REGRESSION, SLOWER_WITHIN_THRESHOLD
from perflab.measure import builds
from perflab.results.quantities import NO_DIFFERENCE

NAME = "compiled_power"
TARGET_RATE = 0.80
DETECTED = (SLOWER_WITHIN_THRESHOLD, REGRESSION)  # check's verdicts that call the slowdown
BENCH = "benchmarks/bench.py"


def calibrated_extra(scratch: Path, percent: float, extra: int | None) -> dict:
    """EXTRA loop iterations that add ``percent`` to spin(SPIN_ARGUMENT), timed on the base build
    (``extra``: given, only checked). The build is made in the run's build cache from a
    repository whose one commit has the base's very tree, so the trials find it built."""
    built = builds.environment(
        c_extension_repository(scratch / "calibration", rounds=(1,)), "HEAD", sys.executable, builds.Choice()
    )
    [site] = (built.folder / "venv" / "lib").glob("python*/site-packages")
    sys.path.insert(0, str(site))
    import cspin  # the base build's extension

    sys.path.remove(str(site))  # nothing else of that environment (its setuptools, pip) in this process

    def slowdown_of(iterations: int) -> float:
        return min_batch_slowdown((cspin.spin, SPIN_ARGUMENT), (cspin.spin, SPIN_ARGUMENT + iterations))

    found = injected_work(percent, slowdown_of, extra, probe=100, script="compiled_power.py")
    print(
        f"calibrated: {found['iterations']} more loop iterations add {found['slowdown_at_calibration']:.2%} "
        f"to cspin.spin({SPIN_ARGUMENT})",
        flush=True,
    )
    found["method"] += f"; spin({SPIN_ARGUMENT} + k) against spin({SPIN_ARGUMENT}) on the base build"
    return {"extra_iterations": found.pop("iterations"), **found, "base_build_seconds": round(built.seconds, 3)}


def git(repository: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(repository), *arguments], check=True, capture_output=True)


def check_trial(repository: Path, kind: str, timing: list[str], out: Path) -> dict:
    """``perflab check --against base --build`` with the revision tagged ``kind`` checked out."""
    git(repository, "checkout", "-q", kind)
    command = ["check", str(repository / BENCH), "--against", "base", "--build", "--no-store", *timing]
    return {"kind": kind, **outcome(perflab_json(command, out))}


def outcome(run) -> dict:
    """What a figure keeps of one ``perflab check --json``: verdict, ratio, wall time, conditions."""
    [cell] = run.result["cells"]
    ratio = cell["comparison"]["ratio"]
    return {
        "exit": run.exit_code,
        "verdict": cell["verdict"],
        "ratio": float(ratio["value"]),
        "ratio_ci": [float(ratio["low"]), float(ratio["high"])],
        "shown": cell["shown"],
        "wall_s": round(run.wall, 2),
        **conditions(),
    }


@contextlib.contextmanager
def installed_on_path(folder: Path) -> Iterator[None]:
    """While inside, the perflab subprocesses import what ``pip install --target folder`` put there."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def by_hand_installer() -> list[str]:
    """What a developer installs a revision with: uv when it is on PATH (as perflab's builds
    choose), else pip; each builds the project in an isolated environment of its own."""
    if shutil.which("uv"):
        return ["uv", "pip", "install", "--quiet", "--python", sys.executable]
    return [sys.executable, "-m", "pip", "install", "--quiet"]


def by_hand_trial(clone: Path, scratch: Path, timing: list[str]) -> dict:
    """The documented by-hand flow: install and run the base, install ``slow`` and check it against
    the base's results file (unpaired); timed from the first checkout to the verdict."""
    started = time.monotonic()
    results = scratch / "by-hand-base.json"
    for revision in ("base", "slow"):
        git(clone, "checkout", "-q", revision)
        target = scratch / f"by-hand-{revision}"
        shutil.rmtree(target, ignore_errors=True)
        install = [*by_hand_installer(), "--target", str(target), "."]
        subprocess.run(install, cwd=clone, check=True, capture_output=True)
        with installed_on_path(target):
            if revision == "base":
                perflab_json(["run", str(clone / BENCH), "--no-store", *timing], results)
            else:
                checked = perflab_json(
                    ["check", str(clone / BENCH), "--against", str(results), "--no-store", *timing],
                    scratch / "by-hand.json",
                )
    return {"kind": "by hand", **outcome(checked), "wall_s": round(time.monotonic() - started, 2)}


def summarize(figure: dict) -> None:
    trials = figure["trials"]
    slow = [t for t in trials if t["kind"] == "slow"]
    same = [t for t in trials if t["kind"] == "same"]
    caught = sum(t["verdict"] in DETECTED for t in slow)
    false = sum(t["verdict"] != NO_DIFFERENCE for t in same)
    cached = [t["wall_s"] for t in slow + same if not t["first"]]
    figure["summary"] = {
        "slow_trials": len(slow),
        "slow_detected": caught,
        "detected_ci95_clopper_pearson": binomial_interval(caught, len(slow)),
        "slow_verdicts": verdict_counts(slow),
        "measured_slowdown_median": quantiles([t["ratio"] for t in slow]).get("median", 1.0) - 1,
        "same_trials": len(same),
        "same_false_verdicts": false,
        "false_ci95_clopper_pearson": binomial_interval(false, len(same)),
        "same_verdicts": verdict_counts(same),
        "wall_s": {
            "check, first build of its revision": quantiles([t["wall_s"] for t in slow + same if t["first"]]),
            "check, both builds cached": quantiles(cached),
            "by hand": quantiles([t["wall_s"] for t in figure["by_hand"]]),
        },
        "by_hand_verdicts": verdict_counts(figure["by_hand"]),
        "load_average_during_trials": quantiles([t["load_average"][0] for t in trials + figure["by_hand"]]),
        "targets": {"slow_detected": f">= {TARGET_RATE:.0%}", "same_false_verdicts": "<= 1%"},
    }


def show(figure: dict) -> None:
    s, c = figure["summary"], figure["calibration"]
    print(f"\n{NAME}: perflab check --against base --build on a setuptools C extension, {figure['start']['utc']}")
    print(
        f"  settings: {figure['settings']['timing']}; load average start {format_load(figure['start'])}, end {format_load(figure['end'])}"
    )
    print(
        f"  builds: {figure['settings']['build_command']}; by hand: {figure['settings']['by_hand_install']} --target DIR ."
    )
    print(
        f"  injected: {c['extra_iterations']} more loop iterations, {c['slowdown_at_calibration']:.2%} at calibration, "
        f"{s['measured_slowdown_median']:.2%} as the trials measured it (median ratio)"
    )
    low, high = s["detected_ci95_clopper_pearson"]
    print(
        f"  5% slower C (slow vs base): detected {s['slow_detected']}/{s['slow_trials']} "
        f"(95% CI {low:.0%}-{high:.0%}), target {s['targets']['slow_detected']}; verdicts {s['slow_verdicts']}"
    )
    low, high = s["false_ci95_clopper_pearson"]
    print(
        f"  two builds of one source (same vs base): {s['same_false_verdicts']}/{s['same_trials']} false verdicts "
        f"(95% CI {low:.0%}-{high:.0%}); verdicts {s['same_verdicts']}"
    )
    for kind, seconds in s["wall_s"].items():
        if seconds:
            print(
                f"  wall time, {kind}: median {seconds['median']:.1f} s (min {seconds['min']:.1f}, max {seconds['max']:.1f})"
            )
    print(f"  by hand (unpaired), slow vs base: verdicts {s['by_hand_verdicts']}")
    for trial in figure["trials"] + figure["by_hand"]:
        print(
            f"    {trial['kind']}: {trial['shown']}: {trial['verdict']}, {trial['wall_s']:.1f} s, load {trial['load_average'][0]:.1f}"
        )


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 30, "check trials of each kind (slow, same)")
    _cli.add_trials(arguments, 5, "runs of the by-hand flow", flag="--by-hand-trials")
    _cli.add_timing(arguments, max_time=60.0)
    _cli.add_slowdown(arguments, 5.0, iterations=True)
    args = _cli.parse(arguments, trials=1, by_hand_trials=1, max_time=20.0, precision=50.0)
    timing = _cli.timing_options(args)
    settings = {
        "trials": args.trials,
        "by_hand_trials": args.by_hand_trials,
        "timing": " ".join(timing),
        "build_command": builds.Choice().install_command(),
        "by_hand_install": " ".join(by_hand_installer()),
    }
    with tempfile.TemporaryDirectory(prefix="perflab-compiled-power-") as directory:
        scratch = Path(directory)
        os.environ["PERFLAB_CACHE"] = str(scratch / "cache")  # one build cache for the whole run
        figure = new_figure(NAME, settings, calibration=calibrated_extra(scratch, args.slowdown, args.iterations))
        figure.update(trials=[], by_hand=[])
        extra = figure["calibration"]["extra_iterations"]
        repository = c_extension_repository(scratch / "repo", rounds=(1, 1, 1), extra=(0, 0, extra))
        for tag, revision in (("base", "HEAD~2"), ("same", "HEAD~1"), ("slow", "HEAD")):
            git(repository, "tag", tag, revision)
        # A smoke run checks ``slow`` only: a ``same`` trial is the same check of another revision.
        kinds = ("slow",) if _cli.is_smoke() else ("slow", "same")
        for number in range(args.trials):
            for kind in kinds if number % 2 == 0 else kinds[::-1]:
                trial = check_trial(repository, kind, timing, scratch / "check.json")
                trial["first"] = number == 0  # its revision built now (the base: by the calibration)
                figure["trials"].append(trial)
                print(
                    f"trial {number + 1} {kind}: {trial['shown']}: {trial['verdict']}, {trial['wall_s']:.1f} s",
                    flush=True,
                )
                save_progress(NAME, figure, summarize)
        clone = scratch / "by-hand"
        git(scratch, "clone", "-q", str(repository), str(clone))
        for _ in range(args.by_hand_trials):
            figure["by_hand"].append(by_hand_trial(clone, scratch, timing))
            save_progress(NAME, figure, summarize)
    return finish(NAME, figure, summarize, show)


if __name__ == "__main__":
    sys.exit(main())
