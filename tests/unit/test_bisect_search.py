"""bisect's search and final check, with a simulated oracle (the measuring is tested in test_bisect.py)."""

import math
import random

import pytest

from perflab.measure.ab_test import Unbuildable
from perflab.measure.bisect import Step, _Distance, _pooled_verdict, search
from perflab.results.quantities import Interval


class Oracle:
    """Calls commit i bad when i >= first_bad, except where told to lie (or at random, with a fixed seed)."""

    def __init__(self, first_bad: int, lies=(), error_rate: float = 0.0, seed: int = 0, lying_checks: bool = False):
        self.first_bad, self.lies, self.error_rate = first_bad, dict(lies), error_rate
        self.lying_checks, self.checks = lying_checks, 0
        self.random = random.Random(seed)
        self.calls = 0

    def __call__(self, indexes: list[int], check: bool) -> list[Step]:
        self.calls += 1
        self.checks += check
        steps = []
        for index in indexes:
            truth = index >= self.first_bad
            if self.calls in self.lies:  # call number -> certain? (the wrong verdict's certainty)
                steps.append(_step(index, not truth, certain=self.lies[self.calls]))
            elif check and self.lying_checks:
                steps.append(_step(index, not truth, certain=True))
            elif self.random.random() < self.error_rate:
                steps.append(_step(index, not truth, certain=False))
            else:
                steps.append(_step(index, truth, certain=True))
        return steps


def _step(index: int, bad: bool, certain: bool) -> Step:
    ratio = 1.05 if bad else 1.0
    return Step(str(index), "", ratio, ratio - 0.01, ratio + 0.01, 1.05, bad=bad, certain=certain, budget=1.0)


@pytest.mark.parametrize("first_bad", [0, 1, 17, 31, 32, 62, 63])
def test_a_right_oracle_costs_log2_n_steps_and_one_check(first_bad):
    oracle = Oracle(first_bad)
    assert search(64, oracle) == (first_bad, True)
    assert oracle.calls == 6 + 1


@pytest.mark.parametrize("certain", [True, False])
@pytest.mark.parametrize("first_bad", [5, 40])
def test_a_wrong_first_step_is_caught_by_the_check(first_bad, certain):
    # The first step (commit 31) gets the wrong verdict: without the check the answer would be
    # stuck on the wrong side of it.
    oracle = Oracle(first_bad, lies={1: certain})
    assert search(64, oracle) == (first_bad, True)
    assert oracle.calls > 7  # the check contradicted the search, which went on


def test_a_wrong_check_that_is_uncertain_does_not_override_a_certain_step():
    oracle = Oracle(20, lies={7: False})  # call 7 is the check
    assert search(64, oracle) == (20, False)  # the answer stands, but is not called certain
    assert oracle.calls == 7


def test_checks_that_keep_contradicting_end_after_max_reopen():
    oracle = Oracle(20, lying_checks=True)
    index, certain = search(64, oracle, max_reopen=2)
    assert not certain and 0 <= index < 64 and oracle.checks == 3


def test_random_wrong_steps_are_mostly_recovered():
    # Each verdict wrong (and uncertain) with probability 10%: plain bisection of 64 commits is
    # right only when all 6 steps are (0.9^6 = 53%); with the check and re-opened searches it is
    # right far more often.
    trials, right, calls = 400, 0, []
    rng = random.Random(6)
    for trial in range(trials):
        first_bad = rng.randrange(64)
        oracle = Oracle(first_bad, error_rate=0.10, seed=trial)
        right += search(64, oracle)[0] == first_bad
        calls.append(oracle.calls)
    assert right / trials > 0.85
    assert sorted(calls)[trials // 2] <= 8  # the median bisection still costs log2(64) + 1 steps + check


def _distance(ratio: float, low: float, high: float, regression: float = 1.05, seen: bool = True):
    return _Distance.of(Interval(ratio, low, high), math.log(regression) / 2, seen)


def test_re_measurements_are_pooled_with_the_earlier_runs():
    # x1.04 with a +-2.5% interval straddles the halfway point of a 5% regression (x1.0247);
    # three such runs together do not.
    one = _distance(1.04, 1.015, 1.065)
    assert _pooled_verdict([one]) == (True, False)
    assert _pooled_verdict([one, one, one]) == (True, True)
    # Two equally precise runs that disagree decide nothing.
    assert _pooled_verdict([_distance(1.05, 1.04, 1.06), _distance(1.0, 0.99, 1.01)])[1] is False
    # A precise run outweighs a vague one.
    assert _pooled_verdict([_distance(1.05, 1.04, 1.06), _distance(0.95, 0.80, 1.10)]) == (True, True)


def test_runs_without_a_visible_regression_count_only_when_there_is_nothing_else():
    unseen = _distance(1.0, 0.995, 1.005, seen=False)
    assert _pooled_verdict([unseen]) == (False, False)  # the estimate, never certain
    assert _pooled_verdict([unseen, _distance(1.05, 1.04, 1.06)]) == (True, True)  # ignored next to a real run
    assert _pooled_verdict([_distance(1.05, 1.04, float("inf"))])[1] is False  # an interval that never closed


class Unbuilt(Oracle):
    """An oracle for which some commits do not build, as a compiled project's broken commits."""

    def __init__(self, first_bad: int, unbuildable: set[int]):
        super().__init__(first_bad)
        self.unbuildable = unbuildable

    def __call__(self, indexes: list[int], check: bool) -> list[Step]:
        if any(index in self.unbuildable for index in indexes):
            raise Unbuildable("does not build", str(indexes[0]))
        return super().__call__(indexes, check)


@pytest.mark.parametrize("first_bad", [0, 3, 7, 12, 15])
def test_commits_that_do_not_build_are_skipped_and_their_neighbours_measured(first_bad):
    skipped: set[int] = set()
    oracle = Unbuilt(first_bad, unbuildable={8, 9})  # 7, the first middle, builds; 8 and 9 do not
    assert search(16, oracle, skipped=skipped) == (first_bad, True)
    assert skipped <= {7, 8}
    assert oracle.calls <= math.log2(16) + 1 + 1  # steps, the check, and the neighbour of a skipped middle


def test_a_first_bad_commit_hidden_behind_unbuildable_ones_is_uncertain():
    skipped: set[int] = set()
    # 5 and 6 do not build, 7 is the first bad one: 5, 6 or 7 may be where it got slower.
    assert search(16, Unbuilt(7, unbuildable={5, 6}), skipped=skipped) == (7, False)
    assert skipped == {5, 6}
