"""Figure: broken optimizations caught by perflab's equivalence checks.

Each file in benchmarks/broken/ declares a reference and "optimized" contenders that are
plausible but wrong: caches keyed by object identity, a cache that goes stale after mutation,
different float formatting, AES-CTR started at another counter or carrying it across calls,
logging that drops caller fields, a memo keyed by id() on immutable strings; and (issue 12) a
median sorting its input in place, lru_cache sharing a list, validation accepting what the
reference rejects or raising an unrelated exception, set order leaking the hash seed, an
accumulator kept across calls, a memo keyed by less than its input, a typed fast path that
overflows. Contenders whose
description starts with "control:" are correct optimizations of the same operations: they must
stay equivalent, so that "caught" is not bought with false alarms.

Every contender goes through the checks ``perflab compare`` runs before timing, in real worker
processes: the declared cases (perflab.measure.equivalence.check_case, with input mutation and shared
outputs), the hash-seed check (perflab.measure.equivalence.check_hash_seed) and equivalence fuzzing
(perflab.measure.difference_search.fuzz_contender: generated inputs with Hypothesis, fixed seed, then the stateful
patterns). Then, to show what each part catches on its own, each contender is fuzzed again
once per part: generated inputs only, and each stateful pattern alone on the declared cases.
Printed as a table and written to benchmarks/results/broken_optimizations.json.

    python benchmarks/broken_optimizations.py                  # 200 generated inputs, seed 0
    python benchmarks/broken_optimizations.py --examples 50 --seed 1
    python benchmarks/broken_optimizations.py --quick          # smoke run: median.py, 20 generated inputs
    python benchmarks/broken_optimizations.py --corpus benchmarks/broken_fresh --no-parts

``--corpus benchmarks/broken_fresh``: a second corpus written apart from the checks (issue 26):
prefix-only inspection, fixed-width overflow, cancellation, order following the hash, lenient
parsers, failure caches, buffer views, id()-keyed caches, NumPy dtype and aliasing, case
folding, float summation order, off-by-one at power-of-two lengths, input mutation; some files
with a strategy, some without. Its figure is written beside the first, named after the folder.
``--corpus benchmarks/broken_independent`` (issue 39): bugs at boundaries nobody declared (NaN
and None at the first place, other scripts' digits, kinds of whitespace, combining marks, a gap
of exactly the code's constant, deeper nesting, a tuple where a list is declared, a base class of
the reference's own exception, a limit in a module-level name, a packing collision, ISO weeks at
the turn of a year, half-cent rounding), and controls right only on the declared domain (NumPy
int64 and nan on empty, a pure-Python 0.0 on empty, a packing as wide as the strategy's range): they must stay equivalent, their difference outside
the domain reported beside the verdict (counted as "a difference outside the declared inputs").

Target: every broken contender flagged (NOT EQUIVALENT, MUTATES INPUT or SHARES OUTPUT) with a
counterexample; every control equivalent. (The checks made while timing, and the repeat-only
caution, need timed runs: tests/e2e/test_equivalence_integrity.py covers them.)
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict
from pathlib import Path

import _cli
from _common import HERE, conditions, machine

from perflab.bench.loading import load_benchmark
from perflab.measure.difference_search import DEFAULT_EXAMPLES, DEFAULT_SEED, fuzz_contender
from perflab.measure.equivalence import check_case, check_hash_seed
from perflab.measure.launcher import run_job
from perflab.measure.sides import contender_sides
from perflab.results.model import EQUIVALENT, INVALID, SKIPPED

NAME = "broken_optimizations"
BROKEN_DIR = HERE / "broken"
TIMEOUT = 120.0  # seconds per worker job
CONTROL = "control:"
# Column titles of the parts of fuzzing run on their own.
PARTS = {"generated": "gen", "in-turn": "turn", "mutated": "mut", "interleaved": "inter", "id-reuse": "ids"}


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument(
        "--examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        help=f"generated inputs per contender (default {DEFAULT_EXAMPLES})",
    )
    arguments.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"Hypothesis seed (default {DEFAULT_SEED})")
    arguments.add_argument("--only", nargs="+", metavar="FILE", help="these files of the corpus (default all)")
    arguments.add_argument(
        "--corpus", type=Path, default=BROKEN_DIR, help="the folder of benchmark files (default benchmarks/broken)"
    )
    arguments.add_argument(
        "--no-parts", action="store_true", help="skip fuzzing each part alone (the 'alone' columns): quicker"
    )
    args = _cli.parse(arguments, examples=20, only=["median"])
    args.corpus = args.corpus.resolve()
    if not args.corpus.is_dir():
        arguments.error(f"--corpus {args.corpus}: not a folder of benchmark files")
    name = NAME if args.corpus == BROKEN_DIR.resolve() else f"{NAME}_{args.corpus.name}"

    start = conditions()
    rows = []
    for path in sorted(args.corpus.glob("*.py")):
        if not args.only or path.stem in args.only:
            rows.extend(check_file(path, args.examples, args.seed, parts=not args.no_parts))
    figure = {
        "name": name,
        "how": {
            "command": " ".join(["python", *sys.argv]),
            "examples": args.examples,
            "seed": args.seed,
            "corpus": str(args.corpus.resolve().relative_to(HERE.parent)),
            "checks": "declared cases: perflab.measure.equivalence.check_case (one worker per case and "
            "contender) and check_hash_seed (one worker per contender, another PYTHONHASHSEED); "
            "fuzzing: perflab.measure.difference_search.fuzz_contender (one worker per contender)",
        },
        "machine": machine(),
        "start": start,
        "end": conditions(),
        "summary": summarize(rows),
        "rows": rows,
    }
    path = _cli.write_figure(name, figure)
    print_figure(figure)
    _cli.written(path)
    summary = figure["summary"]
    return 0 if summary["all_broken_caught"] and summary["all_controls_equivalent"] else 1


def check_file(path: Path, examples: int, seed: int, parts: bool = True) -> list[dict]:
    benchmark = load_benchmark(path)
    reference = benchmark.reference.name
    others = [name for name in benchmark.contenders if name != reference]
    sides = contender_sides(str(path), [reference, *others])
    declared = {name: [] for name in others}
    run = lambda job, side, seed: run_job(job, TIMEOUT, side.python, seed)
    verdicts, outputs = [], {}
    for case in benchmark.cases:
        verdicts += check_case(case, sides, run, outputs)[0]
    check_hash_seed(sides, outputs, verdicts, run)
    for verdict in verdicts:
        if verdict.contender in declared:
            declared[verdict.contender].append(asdict(verdict))
    rows = []
    for name in others:
        started = time.monotonic()
        fuzzed = fuzz_contender(path, name, reference, lambda job: run_job(job, TIMEOUT), examples=examples, seed=seed)
        seconds = time.monotonic() - started
        alone = {}
        for part in PARTS if parts else ():
            found = fuzz_contender(
                path,
                name,
                reference,
                lambda job: run_job(job, TIMEOUT),
                examples=examples if part == "generated" else 0,
                seed=seed,
                patterns=[] if part == "generated" else [part],
            )
            alone[part] = found.status
        control = benchmark.contenders[name].description.startswith(CONTROL)
        rows.append(
            {
                "benchmark": benchmark.name,
                "file": str(path.relative_to(HERE.parent)),
                "contender": name,
                "kind": "control" if control else "broken",
                "description": benchmark.contenders[name].description,
                "declared": declared[name],
                "fuzz": {**asdict(fuzzed), "caught_by": fuzzed.caught_by},
                "fuzz_seconds": round(seconds, 2),
                "parts_alone": alone,
            }
        )
    return rows


def declared_status(row: dict) -> str:
    statuses = [verdict["status"] for verdict in row["declared"]]
    failed = [status for status in statuses if status in INVALID]
    if failed:
        return f"{failed[0].upper()} ({len(failed)}/{len(statuses)})"
    return SKIPPED if SKIPPED in statuses else (EQUIVALENT if set(statuses) == {EQUIVALENT} else "/".join(statuses))


def caught_by(row: dict) -> list[str]:
    """Which checks flagged the contender, each with a counterexample."""
    found = [f"declared case {verdict['case']}" for verdict in row["declared"] if verdict["status"] in INVALID]
    if row["fuzz"]["status"] in INVALID and row["fuzz"]["counterexample"]:
        found.append(row["fuzz"]["caught_by"])
    return found


def summarize(rows: list[dict]) -> dict:
    broken = [row for row in rows if row["kind"] == "broken"]
    controls = [row for row in rows if row["kind"] == "control"]
    caught = [row for row in broken if caught_by(row)]
    equivalent = [row for row in controls if not caught_by(row) and row["fuzz"]["status"] == EQUIVALENT]
    return {
        "broken": len(broken),
        "broken_caught": len(caught),
        "broken_caught_by_declared_cases": sum(any(v["status"] in INVALID for v in row["declared"]) for row in broken),
        "broken_caught_by_fuzzing": sum(row["fuzz"]["status"] in INVALID for row in broken),
        "broken_caught_only_by_fuzzing": sum(
            not any(v["status"] in INVALID for v in row["declared"]) and row["fuzz"]["status"] in INVALID
            for row in broken
        ),
        "controls": len(controls),
        "controls_equivalent": len(equivalent),
        # Cautions on controls: an error instead of a verdict, or a fuzzing warning; the warning that
        # the reference rejected no input (error behaviour never compared) is counted apart.
        "controls_cautioned": sum(
            row["fuzz"]["status"] not in (EQUIVALENT, *INVALID)
            or any("warning" in n and "rejected none" not in n for n in row["fuzz"]["notes"])
            for row in controls
        ),
        "controls_nothing_rejected": sum(any("rejected none" in n for n in row["fuzz"]["notes"]) for row in controls),
        # A difference outside the declared inputs, reported beside an equivalent verdict (issue 39).
        "controls_outside_difference": sum(bool(row["fuzz"].get("outside")) for row in controls),
        "broken_missed_outside_difference": sum(
            bool(row["fuzz"].get("outside")) and not caught_by(row) for row in broken
        ),
        "all_broken_caught": len(caught) == len(broken) > 0,
        "all_controls_equivalent": len(equivalent) == len(controls),
        "fuzz_seconds_max": max((row["fuzz_seconds"] for row in rows), default=0.0),
    }


def print_figure(figure: dict) -> None:
    how, summary = figure["how"], figure["summary"]
    print(
        f"\nBroken optimizations caught: {figure['how']['corpus']}/*.py, declared cases + fuzzing "
        f"({how['examples']} generated inputs, seed {how['seed']}, then stateful patterns)"
    )
    print(f"  load average start {_load(figure['start'])}, end {_load(figure['end'])}\n")
    parts = " ".join(f"{title:>5}" for title in PARTS.values())
    header = (
        f"{'contender':<34} {'kind':<8} {'declared cases':<21} {'fuzzing: caught by':<45} {'fuzz s':>6}"
        f"   alone: {parts}"
    )
    print(header)
    print("-" * len(header))
    for row in figure["rows"]:
        fuzz = row["fuzz"]
        fuzzing = fuzz["caught_by"] or fuzz["status"]
        alone = " ".join(f"{_mark(row['parts_alone'].get(part, '-')):>5}" for part in PARTS)
        print(
            f"{row['benchmark'] + '.' + row['contender']:<34} {row['kind']:<8} {declared_status(row):<21} "
            f"{_clip(fuzzing, 45):<45} {row['fuzz_seconds']:>6.1f}          {alone}"
        )
    print(
        f"alone: each part of fuzzing run by itself; x = flagged (not equivalent, mutates input), . = equivalent "
        f"(gen: {how['examples']} generated inputs; {', '.join(f'{t}: {p}' for p, t in PARTS.items() if p != 'generated')}"
        f" on the declared cases only)"
    )
    print("\nCounterexamples (first difference found by each check):")
    for row in figure["rows"]:
        name = f"{row['benchmark']}.{row['contender']}"
        for verdict in row["declared"]:
            if verdict["status"] in INVALID:
                print(
                    f"  {name} - declared case {verdict['case']} ({verdict['status']}): "
                    f"{_clip(verdict['difference'], 150)}"
                )
        fuzz = row["fuzz"]
        if fuzz["status"] in INVALID:
            print(
                f"  {name} - {fuzz['caught_by']}:\n      input {_clip(fuzz['counterexample'], 200)}\n"
                f"      {_clip(fuzz['difference'], 150)}"
            )
        elif fuzz["status"] != EQUIVALENT:
            print(f"  {name} - fuzzing {fuzz['status']}: {fuzz['difference']}")
        if fuzz.get("outside"):
            print(f"  {name} - outside the declared inputs: {_clip(fuzz['outside'], 200)}")
    print(
        f"\nBroken contenders caught: {summary['broken_caught']}/{summary['broken']} "
        f"(declared cases {summary['broken_caught_by_declared_cases']}, fuzzing "
        f"{summary['broken_caught_by_fuzzing']}, only fuzzing {summary['broken_caught_only_by_fuzzing']}); "
        f"controls equivalent: {summary['controls_equivalent']}/{summary['controls']} "
        f"(with a warning or error: {summary['controls_cautioned']}; error behaviour never compared: "
        f"{summary['controls_nothing_rejected']}; a difference outside the declared inputs: "
        f"{summary['controls_outside_difference']}; missed broken with one: {summary['broken_missed_outside_difference']}). "
        f"Target: all caught, no control flagged -> "
        f"{'met' if summary['all_broken_caught'] and summary['all_controls_equivalent'] else 'NOT met'}"
    )


def _mark(status: str) -> str:
    return "x" if status in INVALID else {EQUIVALENT: "."}.get(status, status[:5])


def _clip(text: str | None, width: int) -> str:
    text = text or ""
    return text if len(text) <= width else text[: width - 3] + "..."


def _load(state: dict) -> str:
    return ", ".join(f"{x:.2f}" for x in state["load_average"])


if __name__ == "__main__":
    sys.exit(main())
