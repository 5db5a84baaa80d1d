"""The command's one time budget and its phases' shares (perflab.measure.budget)."""

import pytest

from perflab.measure.budget import CHECKS_END, FUZZ_END, TIMING_FLOOR, Budget


def test_each_phase_ends_by_its_share_counted_from_the_budgets_start():
    budget = Budget(30.0, ends=1000.0)  # started at 970
    assert budget.for_fuzzing().ends == pytest.approx(970 + FUZZ_END * 30)
    assert budget.for_checks().ends == pytest.approx(970 + CHECKS_END * 30)
    assert budget.for_checks().for_fuzzing().ends == pytest.approx(970 + FUZZ_END * 30)  # from the start, not the share


def test_the_timing_phase_has_the_rest_and_never_less_than_its_floor():
    budget = Budget(30.0, ends=1000.0)
    assert budget.for_timing(spent=2.0) == pytest.approx(28.0)
    assert budget.for_timing(spent=29.0) == pytest.approx(TIMING_FLOOR * 30)
    # At worst the checks end at CHECKS_END: the whole measuring stays within this bound.
    assert round(CHECKS_END + TIMING_FLOOR, 9) <= 1.2


def test_a_stopped_worker_says_which_share_it_outlasted():
    budget = Budget(30.0, ends=1000.0)
    assert budget.ran_out("timing it") == "stopped while timing it: it outlasted the time budget (--max-time 30 s)"
    assert budget.for_checks().ran_out("checking it") == (
        "stopped while checking it: it outlasted the time budget (--max-time 30 s, of which the checks may take 80%)"
    )
