"""Figure: what issue 12's equivalence checks add to ``perflab compare json_dumps --max-time 60``.

Runs the real command with two perflab sources, alternating (base, new, base, new, ...) so both
see the same machine conditions: ``--base`` (default: where this branch left main) and the
working tree's ``src``. Each source is put first on PYTHONPATH, which the worker processes
inherit; the base is a ``git archive`` snapshot of that commit. Reported: each trial's wall time,
the median of each, the ratio new/base with a 95% interval (t on the log ratios of the
alternating pairs), and the equivalence phase's own time as the new run summary states it
(``equivalence_seconds``). Written to benchmarks/results/equivalence_cost.json.

    python benchmarks/equivalence_cost.py                        # 3 pairs at --max-time 60
    python benchmarks/equivalence_cost.py --quick                # smoke run: 1 pair, NESTED, orjson, base HEAD, 2 rounds

Target: the new checks add at most 20% to the wall time at --max-time 60. Issue 26 (error
paths, declared sizes, held outputs, line recording; its base is 38d53df): the equivalence
phase itself at most 20% over its base, both medians printed:

    python benchmarks/equivalence_cost.py --base 38d53df               # quiet machine
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import _cli
from _common import HERE, conditions, format_load, machine
from scipy import special  # (not scipy.stats: ~0.6 s of CPU to import, for a t quantile)

NAME = "equivalence_cost"
REPOSITORY = HERE.parent
TARGET = 0.20


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 3, "alternating (base, new) pairs", flag="--pairs")
    _cli.add_timing(arguments, 60.0, precision=False)
    arguments.add_argument(
        "--base", default=None, help="the perflab revision without the checks (default: git merge-base HEAD main)"
    )
    arguments.add_argument("--case", action="append", default=[], help="only these cases (default all)")
    arguments.add_argument(
        "--contender", action="append", default=[], help="only these contenders and the reference (default all)"
    )
    # A fresh clone may have no main branch: a smoke run compares with HEAD unless told otherwise.
    # A smoke run's compares stop after 2 rounds (not at --max-time, which a loaded machine can reach first).
    args = _cli.parse(arguments, pairs=1, max_time=60.0, case=["NESTED"], contender=["orjson"])
    if args.pairs < 1 or not math.isfinite(args.max_time) or args.max_time <= 0:
        arguments.error("--pairs must be >= 1 and --max-time a positive number of seconds")
    if args.quick and args.base is None:
        args.base = "HEAD"
        print("no --base given: the base is HEAD (the committed tree), not where this branch left main", flush=True)
    base = args.base or _git("merge-base", "HEAD", "main")
    start = conditions()
    selected = [option for name in args.contender for option in ("--contender", name)]
    selected += [option for case in args.case for option in ("--case", case)]
    options = selected + _cli.timing_options(args)
    trials = []
    with tempfile.TemporaryDirectory(prefix="perflab-cost-") as scratch:
        sources = {"base": _snapshot(base, Path(scratch) / "base"), "new": REPOSITORY / "src"}
        for pair in range(args.pairs):
            for label, source in sources.items():
                trial = _trial(label, source, options, Path(scratch) / f"{label}-{pair}.json")
                trials.append(trial)
                print(
                    f"pair {pair + 1}: {label:<4} {trial['wall']:6.1f} s wall, equivalence "
                    f"{trial['equivalence_seconds'] if trial['equivalence_seconds'] is not None else '?'} s, "
                    f"exit {trial['exit_code']}",
                    flush=True,
                )
    figure = {
        "name": NAME,
        "how": {
            "command": " ".join(["python", *sys.argv]),
            "base": base,
            "perflab": " ".join(["compare json_dumps", *options, "--no-store"]),
        },
        "machine": machine(),
        "start": start,
        "end": conditions(),
        "trials": trials,
        "summary": summarize(trials),
    }
    path = _cli.write_figure(NAME, figure)
    show(figure)
    _cli.written(path)
    return 0


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPOSITORY), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def _snapshot(revision: str, where: Path) -> Path:
    """``git archive`` of ``revision``'s src/ in ``where``; returns the directory to put on PYTHONPATH."""
    where.mkdir(parents=True)
    archive = where / "src.tar"
    subprocess.run(["git", "-C", str(REPOSITORY), "archive", "-o", str(archive), revision, "src"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(where)
    (where / "COMMIT").write_text(_git("rev-parse", revision) + "\n")
    return where / "src"


def _trial(label: str, source: Path, options: list[str], out: Path) -> dict:
    command = [
        sys.executable,
        "-m",
        "perflab",
        "compare",
        "json_dumps",
        *options,
        "--no-store",
        "--json",
        str(out),
    ]
    environment = {**os.environ, "PYTHONPATH": str(source)}
    started = time.monotonic()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
    wall = time.monotonic() - started
    result = json.loads(out.read_text()) if out.exists() else {}
    return {
        "label": label,
        "wall": round(wall, 2),
        "exit_code": completed.returncode,
        "equivalence_seconds": _round(result.get("equivalence_seconds")),
        "timing_elapsed": _round(result.get("elapsed")),
        "load_average": os.getloadavg(),
        "stderr_tail": completed.stderr.strip()[-300:] if completed.returncode not in (0, 1) else "",
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def summarize(trials: list[dict]) -> dict:
    walls = {label: [t["wall"] for t in trials if t["label"] == label] for label in ("base", "new")}
    logs = [math.log(new / base) for base, new in zip(walls["base"], walls["new"])]
    centre = sum(logs) / len(logs)
    if len(logs) > 1:
        spread = special.stdtrit(len(logs) - 1, 0.975) * statistics.stdev(logs) / math.sqrt(len(logs))
    else:
        spread = math.inf
    # The equivalence phase as each run's summary states it (fuzzing included for compare).
    equivalence = {
        label: sorted(t["equivalence_seconds"] for t in trials if t["label"] == label and t["equivalence_seconds"])
        for label in ("base", "new")
    }
    ratio = [math.exp(centre - spread), math.exp(centre), math.exp(centre + spread)]
    return {
        "median_wall": {label: sorted(values)[len(values) // 2] for label, values in walls.items()},
        "ratio_new_over_base": ratio,
        "added": ratio[1] - 1,
        "equivalence_seconds_median": {
            label: values[len(values) // 2] if values else None for label, values in equivalence.items()
        },
        "target_met": ratio[2] - 1 <= TARGET if math.isfinite(ratio[2]) else None,
    }


def show(figure: dict) -> None:
    summary = figure["summary"]
    low, value, high = summary["ratio_new_over_base"]
    interval = f"[{low:.3f}, {high:.3f}]" if math.isfinite(high) else "[no interval: one pair]"
    print(f"\nperflab {figure['how']['perflab']}: base {figure['how']['base'][:12]} vs this tree")
    print(f"  load average start {format_load(figure['start'])}, end {format_load(figure['end'])}")
    print(f"  median wall: base {summary['median_wall']['base']:.1f} s, new {summary['median_wall']['new']:.1f} s")
    print(
        f"  new / base: {value:.3f} {interval} (95%, t over {len(figure['trials']) // 2} alternating pairs)"
        f" -> added {summary['added']:+.1%}; target <= +{TARGET:.0%}: "
        f"{ {True: 'met', False: 'NOT met', None: 'undecided'}[summary['target_met']] }"
    )
    phase = summary["equivalence_seconds_median"]
    if phase["new"] is not None:
        base = f"base {phase['base']:.1f} s, " if phase["base"] is not None else ""
        added = f" ({phase['new'] / phase['base'] - 1:+.0%})" if phase["base"] else ""
        print(
            f"  equivalence phase (each run's summary, fuzzing included): median {base}new {phase['new']:.1f} s{added}"
        )


if __name__ == "__main__":
    sys.exit(main())
