"""The built-in case studies, measured: the figures of docs/case-studies.md.

    python benchmarks/case_studies.py            # run every built-in, then print the tables
    python benchmarks/case_studies.py --render   # print the tables from the saved results only
    python benchmarks/case_studies.py --only crypto_aes --only uuids
    python benchmarks/case_studies.py --quick    # smoke run: uuids at --max-time 2

Each built-in is run with `perflab run NAME --max-time BUDGET --json benchmarks/results/case_NAME.json`
(one after the other: two runs at once would share the CPUs). The tables are printed as Markdown,
and the headline figures the case studies are about (orjson on NESTED, cryptography vs pyaes,
tuned vs default logging) are written to benchmarks/results/case_studies.json.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import _cli

from perflab.units import format_times

BUDGETS = {  # seconds of timing per built-in: more cases and contenders need more
    "json_dumps": 90,
    "json_loads": 300,
    "logging_messages": 150,
    "crypto_aes": 90,
    "json_dumps_ensure_ascii": 150,
    "uuids": 60,
    "http_parse": 60,
}
HEADLINES = [  # (built-in, case, contender): the ratios the case studies must reproduce
    ("json_dumps", "NESTED", "orjson"),
    ("crypto_aes", "PYPERF_23000", "cryptography"),
    ("logging_messages", "SILENT", "stdlib_tuned"),
    ("logging_messages", "SIMPLE", "stdlib_tuned"),
    ("logging_messages", "FORMAT", "stdlib_tuned"),
    ("logging_messages", "REALISTIC", "stdlib_tuned"),
]


def result_path(name: str) -> Path:
    return _cli.results_file(f"case_{name}")


def run(name: str, max_time: float | None) -> None:
    budget = f"{max_time or BUDGETS[name]:g}"
    command = [sys.executable, "-m", "perflab", "run", name, "--max-time", budget, "--json", str(result_path(name))]
    print("$", " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)  # exit 1 = something not equivalent


def speedup(comparison: dict) -> tuple[float, float, float]:
    """Reference time / contender time, with its CI (the inverse of the stored time ratio)."""
    value, low, high = (float(comparison["comparison"]["ratio"][bound]) for bound in ("value", "low", "high"))
    return 1 / value, 1 / high, 1 / low  # (a bound "inf" in the file: one round, the interval unbounded)


def number(value: float) -> str:
    """Three significant digits, without exponents: 0.0982, 9.84, 2,900 ('?' for an unbounded end)."""
    if not math.isfinite(value) or value == 0:
        return "?"
    return f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"


def throughput(work: list | None, seconds: float) -> str:
    if not work:
        return ""
    unit, amount = work
    rate = amount / seconds
    if unit == "B":
        return f"{rate / 1e6:.3g} MB/s"
    return f"{rate / 1e6:.3g} M/s" if rate >= 1e6 else f"{rate / 1e3:.3g} k/s"


def table(result: dict) -> str:
    """One Markdown row per (case, contender): median time [95% CI], throughput, speedup, equivalence."""
    comparisons = {(c["case"], c["contender"]): c for c in result["comparisons"]}
    equivalence = {(e["case"], e["contender"]): e for e in result["equivalence"]}
    rows = [
        "| case | contender | time per call, median [95% CI] | throughput | speedup vs "
        f"{result['reference']} [95% CI] | verdict | equivalence |",
        "|---|---|---|---|---|---|---|",
    ]
    for cell in result["cells"]:
        key = (cell["case"], cell["contender"])
        verdict = equivalence.get(key, {})
        status = verdict.get("status", "")
        if status == "not equivalent":
            status = f"**NOT EQUIVALENT**: {verdict['difference']}"
        elif status == "skipped":
            status = verdict["difference"]
        if not cell["estimates"]:
            rows.append(f"| {key[0]} | {key[1]} | not measured | | | | {status} |")
            continue
        median = cell["estimates"]["median"]
        # (a bound is "inf" in the results file when one round was measured: the budget ran out)
        time = format_times(*(float(median[bound]) for bound in ("value", "low", "high")))
        ratio, verdict_text = "", ""
        if key in comparisons:
            value, low, high = speedup(comparisons[key])
            ratio = f"x{number(value)} [{number(low)}–{number(high)}]"
            verdict_text = comparisons[key]["verdict"]
            if not comparisons[key]["valid"]:
                ratio = f"~~{ratio}~~"
        rows.append(
            f"| {key[0]} | {key[1]} | {time} | {throughput(result['work'].get(key[0]), float(median['value']))} "
            f"| {ratio} | {verdict_text} | {status} |"
        )
    notes = sorted({f"{e['contender']}: {e['note']}" for e in result["equivalence"] if e.get("note")})
    rows += [""] + [f"- {note}" for note in notes] if notes else []
    rounds = max((len(cell["runs"]) for cell in result["cells"]), default=0)
    return (
        "\n".join(rows) + f"\n\n{rounds} rounds in {result['elapsed']:.0f} s (`perflab run "
        f"{result['benchmark']} --max-time {result['settings']['max_time']:g}`)."
    )


def headlines(results: dict[str, dict]) -> list[dict]:
    figures = []
    for name, case, contender in HEADLINES:
        comparison = next(
            (
                c
                for c in results.get(name, {}).get("comparisons", [])
                if c["case"] == case and c["contender"] == contender
            ),
            None,
        )
        if comparison is None:
            continue
        value, low, high = speedup(comparison)
        figures.append(
            {
                "benchmark": name,
                "case": case,
                "contender": contender,
                "reference": comparison["reference"],
                "speedup": value,
                "ci95": [low, high],
                "verdict": comparison["verdict"],
                "equivalent": comparison["valid"],
                "rounds": comparison["comparison"]["pairs"],
                "how": f"perflab run {name} --max-time {results[name]['settings']['max_time']:g} "
                "(paired per-round ratios)",
            }
        )
    return figures


def main() -> int:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--render", action="store_true", help="only print tables from saved results")
    arguments.add_argument("--only", action="append", choices=sorted(BUDGETS), help="these built-ins only")
    arguments.add_argument("--max-time", type=float, help="timing budget of every built-in (default: its own)")
    args = _cli.parse(arguments, only=["uuids"], max_time=2.0)
    names = args.only or list(BUDGETS)
    if not args.render:
        for name in names:
            run(name, args.max_time)
    results = {name: json.loads(result_path(name).read_text()) for name in BUDGETS if result_path(name).exists()}
    for name in names:
        if name in results:
            print(f"\n### {name}\n\n{table(results[name])}")
    figures = headlines(results)
    print("\nHeadline figures (speedup = reference time / contender time):")
    for figure in figures:
        low, high = figure["ci95"]
        print(
            f"  {figure['benchmark']} {figure['case']}: {figure['contender']} vs {figure['reference']} "
            f"x{number(figure['speedup'])} [{number(low)}–{number(high)}] ({figure['verdict']}, "
            f"{figure['rounds']} rounds)"
        )
    _cli.written(_cli.write_figure("case_studies", {"figures": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
