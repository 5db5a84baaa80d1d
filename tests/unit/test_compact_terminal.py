"""``perflab demo``'s terminal view (issue 25: 15 KB for three benchmarks, "!" on every row, seven
columns squeezed into 80): compact, every line whole in 80 columns, what needs attention kept, the
rest left to the HTML report beside it."""

from __future__ import annotations

import io

from rich.console import Console

from perflab.render.terminal import results as terminal
from perflab.results.model import (
    EQUIVALENT,
    FUZZING_CASE,
    NOT_EQUIVALENT,
    REFERENCE,
    CaseComparison,
    Cell,
    Equivalence,
    ProcessRun,
    RunResult,
)
from perflab.results.quantities import CellEstimates, Comparison, Interval

# As the demo's cpp_json_scan reads at its 5 s budget: wide intervals, a long contender name, and
# a counterexample that is a whole document.
DOCUMENT = 'b\'{\\n  "statuses": [' + "x" * 2000 + "'"
RATIOS = {"fast": Interval(1 / 1.22, 1 / 9.33, 1 / 0.159), "fast_chunks_forgetful": Interval(1 / 1.67, 1 / 317, 113)}


def scan_run() -> RunResult:
    result = RunResult(
        benchmark="cpp_json_scan",
        file="/a/long/path/to/perflab/builtins/cpp_json_scan.py",
        reference="simple",
        settings={"alpha": 0.05, "min_effect": 0.01, "precision": 0.02, "max_time": 5.0},
        metadata={"machine": {"cpu_model": "cpu", "cpu_count": 2}, "python": {"version": "3.12.0"}},
        work={"TWITTER": ["bytes", 631515]},
    )
    for name, time in (("simple", 16.3e-3), ("fast", 10.5e-3), ("fast_chunks_forgetful", 11e-3)):
        median = Interval(time, time / 3, time * 1.7)
        runs = [ProcessRun(r + 1, 1, [], [time] * 5) for r in range(2)]
        result.cells.append(Cell("TWITTER", name, runs, estimates=CellEstimates(median, median, 2, 10, 0, 0)))
    result.equivalence += [
        Equivalence("TWITTER", "simple", REFERENCE),
        Equivalence("TWITTER", "fast", EQUIVALENT),
        Equivalence(FUZZING_CASE, "fast", EQUIVALENT, note="equivalent on 9 inputs " + "(evidence) " * 30),
        Equivalence("TWITTER", "fast_chunks_forgetful", EQUIVALENT),
        Equivalence(FUZZING_CASE, "fast_chunks_forgetful", NOT_EQUIVALENT, f"counterexample: {DOCUMENT}"),
    ]
    for name, ratio in RATIOS.items():
        valid = result.equivalent("TWITTER", name)
        result.comparisons.append(
            CaseComparison(
                "TWITTER", name, "simple", Comparison(ratio, 0.43, 2, 0.5), 0.43, "no detectable difference", valid
            )
        )
        result.geometric_means[name] = ratio
    return result


def rendered(result: RunResult, width: int, compact: bool) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    terminal.render(result, console, compact=compact)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_compact_view_fits_80_columns_with_every_name_ratio_and_verdict_whole():
    result = scan_run()
    said = rendered(result, 80, compact=True)
    lines = [line.rstrip() for line in said.splitlines()]
    assert max(map(len, lines)) <= 80 and "…" not in said, said
    assert lines[0] == "cpp_json_scan, case TWITTER"
    for name in ("fast", "fast_chunks_forgetful"):
        shown = result.shown(next(c for c in result.comparisons if c.contender == name))
        (row,) = [line for line in lines if line.split()[:1] == [name]]
        assert shown.ratio in row, said  # the name and its whole ratio on one line, the verdict under it
        under = " ".join(" ".join(lines[lines.index(row) + 1 : lines.index(row) + 3]).split())
        assert shown.text in under, said
    assert "NOT EQUIVALENT" in said and "!" not in said.replace("NOT EQUIVALENT", "")
    assert "(evidence)" not in said and said.count("x") < 300  # the evidence note and the document are left out
    assert "fuzzing/fast_chunks_forgetful: counterexample: b'{" in " ".join(said.split())
    assert "precision target ±2.0% NOT reached for 3 cells" in " ".join(said.split())


def test_the_compact_view_is_under_half_the_full_one():
    result = scan_run()
    assert len(rendered(result, 80, compact=True)) < len(rendered(result, 160, compact=False)) / 2
