"""A line of check (and of the pytest gate) that shows two medians and a ratio says which ratio the
verdict's is wherever the medians give another: check printed "199 ms -> 196 ms" beside
"1.04x slower", the pytest gate "171 ms -> 209 ms, 1.30x slower" where 209/171 is 1.22."""

from __future__ import annotations

import pytest

from perflab.analysis.gate import CellCheck, CheckResult, GateComparison
from perflab.render import gate_summaries as summaries
from perflab.results.quantities import NO_DIFFERENCE, Interval


def _check(paired: bool, baseline: float, current: float, ratio: float) -> tuple[CheckResult, CellCheck]:
    comparison = GateComparison(Interval(ratio, ratio * 0.9, ratio * 1.1), 0.3, 0.5, (6, 6))
    cell = CellCheck("SMALL", "base", baseline, current, comparison, NO_DIFFERENCE)
    return CheckResult(0.05, 0.05, paired=paired, cells=[cell]), cell


@pytest.mark.parametrize(
    "paired, baseline, current, ratio, medians",
    [(True, 0.199, 0.196, 1.04, "1.02x faster"), (False, 0.171, 0.209, 1.30, "1.22x slower")],
)
def test_medians_that_give_another_ratio_are_explained(paired, baseline, current, ratio, medians):
    check, cell = _check(paired, baseline, current, ratio)
    note = check.estimators(cell)
    assert note is not None and note.startswith(f"the ratio of the medians shown is {medians}; the verdict's ratio is")
    assert ("interleaved rounds" in note) == paired and ("trimmed" in note) != paired
    [row] = summaries.time_rows(check, check.cells)
    assert f"; {note}" in [part for part, _ in row.verdict]
    assert check.to_json("b", "main", "HEAD")["cells"][0]["estimators"] == note
    assert summaries.TIME_COLUMNS[2:4] == ("baseline median", "current median")


def test_medians_that_give_the_ratio_shown_need_no_note():
    check, cell = _check(True, 0.100, 0.150, 1.5)
    assert check.estimators(cell) is None
    [row] = summaries.time_rows(check, check.cells)
    assert not any("medians" in part for part, _ in row.verdict)
