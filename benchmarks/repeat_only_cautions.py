"""Figure: how often the repeat-only caution strikes genuine speedups, and how often memo caches.

The caution (perflab.measure.timing_verdicts.caution) strikes out a speedup whose steady state is
at least 3x its first-call figure: a memo cache is fast only because the timing loop repeats one
input. A genuine contender whose first call in a process pays a one-time set-up (an encoder built
on first use, a C extension's code paged in) must not be taken for one (issue 26: msgspec and
ujson on the demo were). Each trial runs ``perflab compare`` on

- the built-in ``json_dumps`` (orjson, ujson, msgspec against json.dumps: genuine), and
- benchmarks/repeat_only/content_memo.py (collections.Counter: genuine; a dict memo: a cache),

and counts the faster comparisons that carry the caution: among genuine contenders, false
cautions; among memo caches, true ones (each rate with an exact 95% interval); and those whose
first call was unresolvable (within 10x of timing an empty call: not judged, said as unchecked).
Written to benchmarks/results/repeat_only_cautions.json.

    python benchmarks/repeat_only_cautions.py                # 5 trials of each, quiet machine
    python benchmarks/repeat_only_cautions.py --quick        # smoke run: 1 trial, json_dumps SIMPLE only, no fuzzing

Target: no false caution; every memo cache cautioned.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import _cli
from _common import HERE, binomial_interval, conditions, format_load, machine, perflab_json

NAME = "repeat_only_cautions"
MEMO = "memoized"  # the contenders that cache their input's answer; every other one is genuine
TARGETS = {"json_dumps": "json_dumps", "word_counts": str(HERE / "repeat_only" / "content_memo.py")}
# Enough rounds for the caution (3 processes per side with a first call); loose precision ends them.
OPTIONS = ["--precision", "50", "--values", "5", "--value-time", "0.002", "--no-store"]


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 5, "compare runs of each target")
    _cli.add_timing(arguments, 60.0, precision=False)
    arguments.add_argument("--case", action="append", default=[], help="only these cases (default all)")
    args = _cli.parse(arguments, trials=1, case=["SIMPLE"], max_time=60.0)
    targets = {"json_dumps": TARGETS["json_dumps"]} if args.quick else TARGETS
    # A smoke run skips the fuzzing (the caution is the timing's), and stops by rounds, not by --max-time.
    options = [*OPTIONS, "--max-time", f"{args.max_time:g}", *(["--no-fuzz"] if args.quick else [])]
    start = conditions()
    rows = []
    with tempfile.TemporaryDirectory(prefix="perflab-cautions-") as scratch:
        for trial in range(args.trials):
            for name, target in targets.items():
                cases = [option for case in args.case for option in ("--case", case)] if name == "json_dumps" else []
                run = perflab_json(
                    ["compare", target, *cases, *options],
                    Path(scratch) / f"{name}.json",
                )
                unchecked = run.result["metadata"].get("unchecked", [])
                for comparison in run.result["comparisons"]:
                    steady = 1 / comparison["comparison"]["ratio"]["value"]
                    where = f"{comparison['case']}/{comparison['contender']}: first call unresolvable"
                    rows.append(
                        {
                            "trial": trial,
                            "target": name,
                            "case": comparison["case"],
                            "contender": comparison["contender"],
                            "kind": "memo" if comparison["contender"] == MEMO else "genuine",
                            "steady_speedup": steady,
                            "faster": steady > 1,
                            "caution": comparison["caution"],
                            "unresolvable": any(note.startswith(where) for note in unchecked),
                        }
                    )
                print(f"trial {trial + 1}/{args.trials} {name}: exit {run.exit_code}", flush=True)
    figure = {
        "name": NAME,
        "how": {"command": " ".join(["python", *sys.argv]), "perflab": ["compare", "TARGET", *options]},
        "machine": machine(),
        "start": start,
        "end": conditions(),
        "summary": summarize(rows),
        "rows": rows,
    }
    path = _cli.write_figure(NAME, figure)
    show(figure)
    _cli.written(path)
    return 0


def summarize(rows: list[dict]) -> dict:
    summary = {}
    for kind in ("genuine", "memo"):
        faster = [row for row in rows if row["kind"] == kind and row["faster"]]
        cautioned = sum(row["caution"] is not None for row in faster)
        summary[kind] = {
            "faster_comparisons": len(faster),
            "cautioned": cautioned,
            "unresolvable": sum(row["unresolvable"] for row in faster),
            "rate": cautioned / len(faster) if faster else None,
            "rate_ci": binomial_interval(cautioned, len(faster)),
        }
    return summary


def show(figure: dict) -> None:
    print(f"\nRepeat-only cautions (load average {format_load(figure['start'])} at the start)")
    for row in figure["rows"]:
        mark = "caution" if row["caution"] else "unresolvable" if row["unresolvable"] else "-"
        print(
            f"  trial {row['trial'] + 1} {row['target']:<12} {row['case']:<8} {row['contender']:<10} "
            f"{row['kind']:<8} steady {row['steady_speedup']:6.2f}x faster  {mark}"
        )
    for kind, title in (("genuine", "false cautions (genuine contenders)"), ("memo", "true cautions (memo caches)")):
        found = figure["summary"][kind]
        low, high = found["rate_ci"]
        print(
            f"{title}: {found['cautioned']}/{found['faster_comparisons']} faster comparisons "
            f"(95% interval {low:.0%} to {high:.0%}); first call unresolvable, not judged: "
            f"{found['unresolvable']}"
        )


if __name__ == "__main__":
    sys.exit(main())
