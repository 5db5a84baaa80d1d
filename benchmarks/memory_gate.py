"""Figure: false verdicts of the memory gate (``perflab check --metric memory``) on unchanged code
(A/A), and whether it catches a doubled allocation.

Each trial measures every contender below twice, as a baseline and as the current code, with
exactly what ``--metric memory`` runs (perflab.metrics.memory.measure: bytes allocated per call and
the peak, by memray, in 3 fresh processes per cell), and gives each (contender, figure) pair to the
gate (perflab.analysis.gate.check_memory at the default ``--memory-threshold``, 1%). Counted:

- false regressions: REGRESSION on unchanged code (what fails CI);
- false differences: any verdict but "no change beyond the spread" on unchanged code, and likewise
  for the comparison table's memory verdict (perflab.results.verdicts.show_memory at the default
  minimum effect, 1%) with the baseline as the reference;
- caught: the contender that allocates twice the bytes per call, against the baseline of the one
  that allocates once, found a REGRESSION of bytes allocated per call.

The contenders allocate in Python (bytearray, a dict of strings, json.dumps, a list comprehension)
and in a C extension (numpy). Byte counts do not depend on the machine's load, so the counts can
be taken on a busy machine.

    python benchmarks/memory_gate.py               # 10 trials: 100 A/A comparisons of the gate
    python benchmarks/memory_gate.py --quick       # smoke run: 1 trial of 2 contenders

Target: <= 1% false regressions.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import binomial_interval, conditions, machine

from perflab.analysis import gate
from perflab.analysis.counts import ALLOCATED
from perflab.metrics import memory
from perflab.metrics.count_jobs import Target
from perflab.results.verdicts import SAME_MEMORY, show_memory

THRESHOLD = MIN_EFFECT = 0.01  # check's --memory-threshold and run's --min-effect, at their defaults
CONTENDERS = ("block", "doubled_block", "strings_dict", "json_dumps", "int_list", "numpy_empty")
QUICK_CONTENDERS = ("block", "doubled_block")

BENCH = """
import json
import numpy
import perflab

bench = perflab.Benchmark("memory_gate_figure", compare=lambda reference, output: None)


@bench.case
def N():
    return 2_000


@bench.contender
def block(n):
    return bytearray(n)


@bench.contender
def doubled_block(n):
    return bytearray(2 * n)


@bench.contender
def strings_dict(n):
    return {str(i): i for i in range(n // 20)}


@bench.contender
def json_dumps(n):
    return json.dumps(list(range(n // 20)))


@bench.contender
def int_list(n):
    return [i * 3 for i in range(n // 20)]


@bench.contender
def numpy_empty(n):
    return numpy.empty(n, dtype=numpy.uint8)
"""


def figures(path: Path, contenders: tuple[str, ...]) -> dict[str, dict]:
    """contender -> {figure: ProcessSpread}, measured as --metric memory measures them."""
    uses = memory.measure([Target.of(str(path), "N", name, time_per_call=2e-6) for name in contenders])
    failed = [f"{use.contender}: {use.error}" for use in uses if use.error]
    if failed:
        raise RuntimeError("; ".join(failed))
    return {use.contender: {ALLOCATED: use.allocated, "peak": use.peak} for use in uses}


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 10, "trials: each contender measured twice")
    args = _cli.parse(arguments, trials=1)
    contenders = QUICK_CONTENDERS if _cli.is_smoke() else CONTENDERS
    before = conditions()
    path = Path(tempfile.mkdtemp(prefix="perflab-figure-")) / "memory_gate_figure.py"
    path.write_text(BENCH)

    rows = []
    caught = 0
    for trial in range(args.trials):
        baseline, current = figures(path, contenders), figures(path, contenders)
        checked = gate.CheckResult(0.05, 0.05)
        gate.check_memory(checked, [("N", name, baseline[name], current[name]) for name in contenders], THRESHOLD)
        doubled = gate.CheckResult(0.05, 0.05)
        gate.check_memory(doubled, [("N", "doubled", baseline["block"], current["doubled_block"])], THRESHOLD)
        caught += any(c.figure == ALLOCATED for c in doubled.memory_regressions)
        for cell in checked.memory:
            shown = show_memory(cell.current.processes, cell.baseline.processes, MIN_EFFECT)
            change = cell.change
            rows.append(
                {
                    "trial": trial,
                    "contender": cell.contender,
                    "figure": cell.figure,
                    "baseline": list(cell.baseline.processes),
                    "current": list(cell.current.processes),
                    "change": [change.value, change.low, change.high],
                    "gate": cell.verdict,
                    "table": shown.verdict,
                }
            )
        print(
            f"trial {trial + 1}/{args.trials}: "
            + "; ".join(f"{r['contender']} {r['figure']} {r['gate']}" for r in rows[-len(checked.memory) :])
        )

    regressions = sum(row["gate"] == gate.REGRESSION for row in rows)
    differences = sum(row["gate"] != gate.SAME_MEMORY for row in rows)
    table_differences = sum(row["table"] != SAME_MEMORY for row in rows)
    low, high = binomial_interval(regressions, len(rows))
    print(
        f"A/A: {regressions}/{len(rows)} false regressions of the memory gate "
        f"({regressions / len(rows):.1%}, 95% CI {low:.1%} to {high:.1%}; target <= 1%); "
        f"{differences}/{len(rows)} gate verdicts other than no change; "
        f"{table_differences}/{len(rows)} comparison-table memory verdicts other than no difference"
    )
    print(f"doubled allocation caught: {caught}/{args.trials} trials")
    figure = {
        "settings": {"trials": args.trials, "contenders": list(contenders), "threshold": THRESHOLD},
        "false_regressions": regressions,
        "false_differences": differences,
        "table_false_differences": table_differences,
        "comparisons": len(rows),
        "caught": caught,
        "rows": rows,
        "before": before,
        "after": conditions(),
        "machine": machine(),
    }
    _cli.written(_cli.write_figure("memory_gate", figure))


if __name__ == "__main__":
    main()
