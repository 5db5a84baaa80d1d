"""A 95% interval that excludes 1x beside "no detectable difference" read as a contradiction (the
verdict uses a stricter level after the false discovery rate correction, or a minimum effect):
every output's verdict says which, as check's table does."""

from __future__ import annotations

from perflab.results.model import EQUIVALENT, REFERENCE, CaseComparison, Equivalence, RunResult
from perflab.results.quantities import NO_DIFFERENCE, Comparison, Interval
from perflab.results.verdicts import show


def _result(ratio: Interval, p_adjusted: float) -> tuple[RunResult, CaseComparison]:
    result = RunResult("b", "b.py", "ref", {"alpha": 0.05, "min_effect": 0.01}, {}, {})
    comparison = CaseComparison(
        "SMALL", "new", "ref", Comparison(ratio, 0.03, 8, 0.01), p_adjusted, NO_DIFFERENCE, True
    )
    result.comparisons.append(comparison)
    result.equivalence += [Equivalence("SMALL", "ref", REFERENCE), Equivalence("SMALL", "new", EQUIVALENT)]
    return result, comparison


def test_an_interval_excluding_one_says_the_verdicts_level_is_stricter():
    result, comparison = _result(Interval(0.9, 0.85, 0.96), 0.074)
    shown = result.shown(comparison)
    assert shown.text == (
        "no detectable difference (p=0.074; its 95% interval excludes 1x, but not at the 5% false discovery rate)"
    )
    assert result.to_json()["comparisons"][0]["shown"]["detail"] == shown.detail


def test_a_change_under_the_minimum_effect_says_so():
    result, comparison = _result(Interval(0.995, 0.993, 0.997), 0.001)
    assert result.shown(comparison).detail == "p=0.001; a change under the 1% minimum effect"


def test_an_interval_that_includes_one_needs_nothing_more():
    result, comparison = _result(Interval(0.99, 0.95, 1.03), 0.4)
    assert result.shown(comparison).detail == "p=0.4"
    assert show(Interval(0.9, 0.85, 0.96), NO_DIFFERENCE, 0.074, None, None).detail == "p=0.074"  # no level given
