"""The CI gate's unpaired comparison, checked by simulation with fixed seeds."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from support.gate_shared import processes
from support.store_results import synthetic_result

from perflab.analysis import gate
from perflab.analysis.gate import REGRESSION, check, compare_unpaired
from perflab.render.markdown import render_check
from perflab.results.model import RunResult


def slowed(result: RunResult, case: str, factor: float) -> RunResult:
    copy = RunResult.from_json(result.to_json())
    for run in copy.cell(case, "base").runs:
        run.values = [v * factor for v in run.values]
    return copy


def counts(value: float, *others: float):
    from perflab.metrics import InstructionsEstimate

    processes = (value, *others)
    return InstructionsEstimate(float(np.median(processes)), min(processes), max(processes), processes, 100)


def test_fewer_than_two_processes_is_undecided_not_a_regression():
    rng = np.random.default_rng(2)
    comparison = compare_unpaired(processes(rng, 1), processes(rng, 5, 3.0), 0.05)
    assert comparison.p_regression == 1.0 and math.isinf(comparison.ratio.high)


def test_check_names_the_regressed_case_only():
    baseline = synthetic_result(cases=("A", "B", "C"), processes=8, seed=1)
    current = slowed(slowed(synthetic_result(cases=("A", "B", "C"), processes=8, seed=2), "B", 1.5), "C", 0.7)
    result = check(baseline, current, threshold=0.05)
    verdicts = {cell.case: cell.verdict for cell in result.cells}
    assert verdicts["B"] == REGRESSION and verdicts["C"] == "faster"
    assert verdicts["A"] != REGRESSION
    assert [cell.case for cell in result.regressions] == ["B"]


def test_cells_on_one_side_only_and_other_machines_are_reported():
    baseline = synthetic_result(cases=("A", "OLD"), machine={"cpu_model": "other", "cpu_count": 64})
    current = synthetic_result(cases=("A", "NEW"), seed=3)
    result = check(baseline, current)
    assert sorted(result.not_compared) == ["NEW/base", "OLD/base"]
    assert any("different machine" in note for note in result.notes)


def test_markdown_summary_is_a_table_and_escapes_user_text():
    baseline = synthetic_result(cases=("a|b",), processes=8, seed=1)
    current = slowed(synthetic_result(cases=("a|b",), processes=8, seed=2), "a|b", 1.5)
    text = render_check(check(baseline, current), "bench<x>", "`baseline.json`", "abc123 (this run)")
    assert text.startswith("### :x: perflab: 1 regression(s), more than 1.05x slower,")
    # The regression is the time ratio current/baseline, written as every output writes it.
    assert re.search(r"\| 1\.[45]\dx slower \[1\.\d\dx, 1\.\d\dx\] \| \*\*REGRESSION\*\* \|", text)
    # The benchmark's name is inline code: shown literally, HTML included.
    assert "| a\\|b | base |" in text and "**REGRESSION**" in text and "in `bench<x>`" in text
    ok = render_check(check(baseline, baseline), "bench", "b", "c")
    assert ok.startswith("### :white_check_mark:")


@pytest.mark.parametrize("threshold", [0.02, 0.10])
def test_the_threshold_moves_the_boundary(threshold):
    rng = np.random.default_rng(4)
    before, after = processes(rng, 10, within=0.01, between=0.005), processes(rng, 10, 1.06, 0.01, 0.005)
    comparison = compare_unpaired(before, after, threshold)
    assert (comparison.p_regression <= 0.05) == (threshold < 0.06)
    assert gate._verdict(comparison, 0.0, 1.0, 0.05, 0.01) == gate.SLOWER_WITHIN_THRESHOLD


def test_a_regression_must_show_again_when_re_measured():
    baseline = synthetic_result(processes=8, seed=1)
    busy = slowed(synthetic_result(processes=8, seed=2), "SMALL", 2.0)  # a run on a busy machine
    calm = synthetic_result(processes=8, seed=3)
    still_slow = slowed(synthetic_result(processes=8, seed=4), "SMALL", 1.3)
    first = check(baseline, busy)
    assert first.regressions
    assert gate.confirm(first, check(baseline, calm)).cells[0].verdict == gate.NOT_REPRODUCED
    confirmed = gate.confirm(first, check(baseline, still_slow))
    assert confirmed.regressions and confirmed.cells[0].comparison.ratio.value == pytest.approx(1.3, rel=0.05)


def test_a_re_measurement_that_decides_nothing_leaves_the_regression_standing():
    """A confirmation cut to one round by the budget (a loaded CI runner) is undecided: it neither
    shows the regression again nor clears it, so the gate still fails, and says why."""
    baseline = synthetic_result(processes=8, seed=1)
    first = check(baseline, slowed(synthetic_result(processes=8, seed=2), "SMALL", 1.3))
    assert first.regressions
    one_round = check(baseline, slowed(synthetic_result(processes=1, seed=3), "SMALL", 1.3))
    assert one_round.cells[0].verdict == gate.UNDECIDED
    for again in (one_round, gate.CheckResult(0.05, 0.05)):  # undecided, or not measured again at all
        confirmed = gate.confirm(first, again)
        assert confirmed.regressions and confirmed.cells == first.cells
        assert any("re-measurement of SMALL/base decided nothing" in note for note in confirmed.notes)


def test_the_headline_says_no_regression_only_when_every_cell_was_decided():
    """One undecided cell or one measured on one side only: "no regression shown", marked as a
    warning, with how many cells it could not decide, on every surface of the check."""
    from perflab.render.html.gate_pages import render_check as render_page

    baseline = synthetic_result(cases=("A", "B"), processes=8, seed=1)
    decided = check(baseline, synthetic_result(cases=("A", "B"), processes=8, seed=2))
    assert render_check(decided, "bench", "b", "c").startswith(
        "### :white_check_mark: perflab: no regression (more than 1.05x slower) in `bench`\n"
    )
    one_process = synthetic_result(cases=("A", "B"), processes=8, seed=3)
    one_process.cell("B", "base").runs[1:] = []
    unsettled = check(baseline, one_process)
    assert [cell.verdict == gate.UNDECIDED for cell in unsettled.cells] == [False, True]
    unsettled.not_compared = ["C/base"]
    said = "no regression shown (more than 1.05x slower) in `bench`: of 3 cells, 1 undecided, 1 not compared"
    assert render_check(unsettled, "bench", "b", "c").startswith(f"### :warning: perflab: {said}\n")
    page = render_page(unsettled, "bench", "b", "c")
    assert said.replace("`bench`", "<code>bench</code>") in page and "class='slower'" not in page.split("</h1>")[0]


def test_a_few_slow_processes_do_not_fake_a_regression():
    """Three processes of twenty slowed by another tenant: trimmed means ignore them."""
    rng = np.random.default_rng(8)
    before = processes(rng, 20, within=0.01, between=0.005)
    after = processes(rng, 20, within=0.01, between=0.005)
    after[:3] = [[v * 2 for v in values] for values in after[:3]]
    assert compare_unpaired(before, after, 0.05).p_regression > 0.05


@pytest.mark.parametrize(
    "before, after, verdict",
    [
        (counts(1000.0), counts(1006.0), REGRESSION),  # +0.6%, no spread
        (counts(1000.0), counts(1003.0), gate.MORE_INSTRUCTIONS),  # +0.3%: real, under the threshold
        (counts(1000.0, 1004.0), counts(1006.0), gate.MORE_INSTRUCTIONS),  # spread: at least +0.2% only
        (counts(1000.0), counts(1000.0), gate.SAME_INSTRUCTIONS),
        (counts(1000.0, 1002.0), counts(1001.0), gate.SAME_INSTRUCTIONS),  # within the spread
        (counts(1000.0), counts(990.0), gate.FEWER_INSTRUCTIONS),
    ],
)
def test_instruction_verdicts_use_the_range_the_spreads_allow(before, after, verdict):
    checked = gate.CheckResult(0.05, 0.05)
    gate.check_instructions(checked, [("SMALL", "base", before, after)], threshold=0.005)
    assert [cell.verdict for cell in checked.instructions] == [verdict]
    assert bool(checked.instruction_regressions) == (verdict == REGRESSION)


def test_instructions_and_time_that_disagree_are_called_out():
    baseline = synthetic_result(processes=8, seed=1)
    current = slowed(synthetic_result(processes=8, seed=2), "SMALL", 3.0)  # 3x the time ...
    checked = check(baseline, current)
    gate.check_instructions(checked, [("SMALL", "base", counts(1000.0), counts(1001.0))], 0.005)  # ... same work
    assert any(re.search(r"instructions \+0\.10% but wall time [23]\.\d\dx slower", note) for note in checked.notes)
    text = render_check(checked, "bench", "b", "c")
    assert "| SMALL | base | 1,000.0 | 1,001.0 | +0.100% [+0.100%, +0.100%] |" in text


def test_a_no_difference_whose_interval_excludes_one_says_why_it_is_no_verdict():
    """2 rounds, p = 0.03: the 95% interval shown excludes 1x while the verdict, at a 1% false discovery
    rate, is "no detectable difference"; the row says why, and a change under the minimum effect
    says that instead. A verdict the interval agrees with says nothing more."""
    from perflab.render.html.gate_pages import render_check as render_page
    from perflab.results.quantities import NO_DIFFERENCE, Interval

    def cell(case, value, low, high, verdict=NO_DIFFERENCE):
        return gate.CellCheck(
            case, "c", 1e-6, value * 1e-6, gate.GateComparison(Interval(value, low, high), 0.03, 0.5, (2, 2)), verdict
        )

    checked = gate.CheckResult(0.05, 0.01, paired=True, min_effect=0.01)
    checked.cells = [cell("A", 1.23, 1.07, 1.42), cell("B", 1.005, 1.002, 1.008), cell("C", 1.02, 0.97, 1.07)]
    text = render_check(checked, "bench", "b", "c")
    assert (
        "| A | c |" in text
        and "no detectable difference; its 95% interval excludes 1x, but not at the 1% false discovery rate |" in text
    )
    assert "no detectable difference; a change under the 1% minimum effect |" in text
    assert re.search(r"\| C \| c \|.*\| no detectable difference \|$", text, re.MULTILINE)
    assert "but not at the 1% false discovery rate" in render_page(checked, "bench", "b", "c")
