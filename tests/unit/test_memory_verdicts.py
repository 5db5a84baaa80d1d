"""Memory verdicts (--metric memory): bytes allocated per call of a contender against the reference's
in the comparison table, and the memory gate of perflab check, from per-process figures."""

import io

from rich.console import Console
from support.metrics_results_shared import _result

from perflab.analysis import gate
from perflab.analysis.counts import ALLOCATED, PEAK, ProcessSpread
from perflab.cli import parser
from perflab.metrics import Measured, memory, memory_figures
from perflab.render import markdown
from perflab.render.html import gate_pages
from perflab.results.model import CaseComparison, Cell, RunResult
from perflab.results.quantities import Comparison, Interval
from perflab.results.store import Store
from perflab.results.verdicts import LESS_MEMORY, MORE_MEMORY, SAME_MEMORY, show_memory


def test_a_doubled_allocation_is_more_memory_with_the_range_of_ratios():
    shown = show_memory([20_000.0, 20_010.0, 20_020.0], [10_000.0, 10_005.0, 10_010.0], min_effect=0.01)
    assert shown.verdict == MORE_MEMORY
    assert shown.ratio == "2.00x more memory [2.00x, 2.00x]"  # perflab.units' convention, its words
    assert show_memory([5_000.0] * 3, [10_000.0] * 3, 0.01).verdict == LESS_MEMORY
    assert show_memory([5_000.0] * 3, [10_000.0] * 3, 0.01).ratio == "2.00x less memory [2.00x, 2.00x]"


def test_no_memory_verdict_within_the_spread_the_minimum_effect_or_64_bytes():
    assert show_memory([100.0, 130.0], [110.0, 120.0], 0.01).verdict == SAME_MEMORY  # ranges overlap
    assert show_memory([10_050.0] * 3, [10_000.0] * 3, 0.01).verdict == SAME_MEMORY  # 0.5% < the minimum effect
    assert show_memory([8.0] * 3, [0.0] * 3, 0.01).verdict == SAME_MEMORY  # 8 B: within the figures' accuracy


def _use(contender: str, allocated: float, peak: float | None = None) -> memory.MemoryUse:
    return memory.MemoryUse(
        "DOC",
        contender,
        50,
        allocated_per_call=[allocated] * 3,
        peak_allocated=[peak if peak is not None else allocated] * 3,
        allocation_loops=1000,
    )


def _compared(*uses: memory.MemoryUse) -> RunResult:
    comparison = CaseComparison("DOC", "b", "a", Comparison(Interval(1.0, 0.9, 1.1), 0.5, 5, 0.01), 0.5, "same", True)
    return _result(
        cells=[Cell("DOC", "a"), Cell("DOC", "b")],
        comparisons=[comparison],
        settings={"min_effect": 0.01, "precision": 0.01, "alpha": 0.05},
        metadata={"machine": {"cpu_model": "x"}},
        metrics=Measured(memory=list(uses)).to_json(),
    )


def test_a_run_shows_its_memory_verdict_in_json_and_markdown_and_reads_back():
    result = _compared(_use("a", 1000.0), _use("b", 3000.0))
    shown = result.memory_shown(result.comparisons[0])
    assert shown is not None and shown.verdict == MORE_MEMORY
    data = result.to_json()
    assert data["comparisons"][0]["memory_shown"] == shown.to_json()
    assert RunResult.from_json(data).memory_shown(result.comparisons[0]) == shown  # derived: dropped, recomputed
    summary = markdown.render_result(result)
    assert "| allocated/call vs reference [range] | memory verdict |" in summary
    assert f"| {shown.ratio} | {shown.verdict} |" in summary


def test_no_memory_column_without_memory_figures():
    result = _compared()
    assert result.memory_shown(result.comparisons[0]) is None
    assert "memory_shown" not in result.to_json()["comparisons"][0]
    assert "memory verdict" not in markdown.render_result(result)


def _figures(allocated: float, peak: float, spread: float = 0.0) -> dict[str, ProcessSpread]:
    return {
        ALLOCATED: ProcessSpread.of([allocated, allocated * (1 + spread)], 1000),
        PEAK: ProcessSpread.of([peak, peak * (1 + spread)], 1000),
    }


def test_memory_gate_fails_a_doubled_allocation_and_passes_an_unchanged_one():
    checked = gate.CheckResult(0.05, 0.05)
    gate.check_memory(
        checked,
        [
            ("DOC", "doubled", _figures(10_000, 12_000), _figures(20_000, 12_000)),
            ("DOC", "unchanged", _figures(10_000, 12_000, 0.001), _figures(10_005, 12_000, 0.001)),
            ("DOC", "peak", _figures(10_000, 12_000), _figures(10_000, 24_000)),
        ],
        threshold=0.01,
    )
    verdicts = {(c.contender, c.figure): c.verdict for c in checked.memory}
    assert verdicts == {
        ("doubled", ALLOCATED): gate.REGRESSION,
        ("doubled", PEAK): gate.SAME_MEMORY,
        ("unchanged", ALLOCATED): gate.SAME_MEMORY,
        ("unchanged", PEAK): gate.SAME_MEMORY,
        ("peak", ALLOCATED): gate.SAME_MEMORY,
        ("peak", PEAK): gate.REGRESSION,
    }
    assert len(checked.memory_regressions) == 2
    assert checked.to_json("counted", "base", "now")["passed"] is False


def test_memory_gate_beyond_the_spread_but_within_the_threshold_or_64_bytes_passes():
    checked = gate.CheckResult(0.05, 0.05)
    gate.check_memory(
        checked,
        [
            ("DOC", "a", _figures(10_000, 10_000), _figures(10_080, 10_000)),  # +0.8%, spreads 0
            ("DOC", "b", _figures(40, 40), _figures(80, 40)),  # 2x, but 40 bytes
            ("DOC", "c", _figures(10_000, 10_000), _figures(5_000, 10_000)),
        ],
        threshold=0.01,
    )
    verdicts = {(c.contender, c.figure): c.verdict for c in checked.memory}
    assert verdicts[("a", ALLOCATED)] == gate.MORE_MEMORY
    assert verdicts[("b", ALLOCATED)] == gate.SAME_MEMORY
    assert verdicts[("c", ALLOCATED)] == gate.LESS_MEMORY
    assert not checked.memory_regressions and checked.to_json("counted", "base", "now")["passed"]


def test_the_check_summary_says_the_memory_regression_in_markdown_and_html():
    checked = gate.CheckResult(0.05, 0.05)
    gate.check_memory(checked, [("DOC", "a", _figures(10_000, 12_000), _figures(20_000, 12_000))], threshold=0.01)
    summary = markdown.render_check(checked, "counted", "base", "now")
    assert "1 regression(s), more than 1.05x slower or 1.00% more memory" in summary
    assert "| DOC | a | allocated/call | 9.77 KiB | 19.5 KiB | 2.00x more memory [2.00x, 2.00x] | **REGRESSION** |" in (
        summary
    )
    page = gate_pages.render_check(checked, "counted", "base", "now")
    assert "1 regression(s), more than 1.05x slower or 1.00% more memory" in page
    assert "2.00x more memory [2.00x, 2.00x]" in page


def test_memory_figures_of_a_run_are_read_back_by_cell():
    result = _compared(_use("a", 1000.0, 1500.0), memory.MemoryUse("DOC", "old", 50))  # "old": before memray
    figures = memory_figures(RunResult.from_json(result.to_json()))
    assert list(figures) == [("DOC", "a")]
    assert figures["DOC", "a"][ALLOCATED].value == 1000.0 and figures["DOC", "a"][PEAK].value == 1500.0


def test_history_of_bytes_allocated_per_call_finds_the_doubling(tmp_path, capsys):
    """Ten stored runs whose bytes allocated per call double after the fifth; runs measured without
    memray's figures (timed only) are left out of the series."""
    db = tmp_path / "history.db"
    with Store.open(db) as store:
        store.save(_result())  # timed only: not in the series
        for index in range(10):
            use = _use("a", 10_000.0 if index < 5 else 20_000.0)
            measured = Measured(memory=[use]).to_json()
            store.save(_result(metrics=measured, metadata={"started_at": f"2026-01-01T00:00:{index:02d}+00:00"}))
    args = parser().parse_args(["history", "counted", "--metric", "memory", "--db", str(db)])
    assert args.handler(args, Console(file=io.StringIO())) == 0
    output = " ".join(capsys.readouterr().out.split())
    assert "10 run(s)" in output and "allocated/call ± range" in output and "19.5 KiB ± 0.00%" in output
    assert (
        "▲ 2.00x more memory" in output and "change point: 2.00x more memory [95% CI" in output
    )  # as compare writes it
