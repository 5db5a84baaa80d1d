"""A failing input made smaller (perflab.bench.worker.smaller_inputs): the cut still fails, it is
as small as the failure allows when the budget suffices, and the budget is kept."""

import random

import pytest

from perflab.bench.worker.smaller_inputs import smaller


def out_of_order(value):
    """What sorted(set(xs)) gets wrong against order-keeping deduplication: an item before a smaller one."""
    return any(a > b for a, b in zip(value, value[1:]))


def test_a_long_failing_list_is_cut_to_two_items():
    value = [1] + list(range(1, 50)) + list(range(50)) * 3  # a declared input with one item changed
    cut = smaller(value, out_of_order)
    assert out_of_order(cut) and len(cut) == 2


@pytest.mark.parametrize("seed", range(20))
def test_the_cut_still_fails_and_is_one_minimal(seed):
    rng = random.Random(seed)
    value = [rng.randrange(100) for _ in range(rng.randrange(2, 300))]
    needs = {rng.randrange(100), rng.randrange(100)}  # fails while it holds both of two values
    fails = lambda v: needs <= set(v)
    if not fails(value):
        value += sorted(needs)
    cut = smaller(value, fails)
    assert fails(cut) and sorted(set(cut)) == sorted(cut) == sorted(needs)


def test_text_tuples_and_mappings_keep_their_type():
    assert smaller("xxxxaxxxxbxxxx", lambda v: "a" in v and "b" in v) == "ab"
    assert smaller(tuple(range(40)), lambda v: 7 in v) == (7,)
    assert smaller({k: k * k for k in range(30)}, lambda v: 12 in v and 20 in v) == {12: 144, 20: 400}


def test_what_cannot_be_cut_or_never_fails_smaller_is_returned_unchanged():
    value = list(range(10))
    assert smaller(value, lambda v: False) is value
    assert smaller(42, lambda v: True) == 42
    assert smaller(frozenset({1, 2}), lambda v: True) == frozenset({1, 2})


def test_the_budget_of_checks_is_kept():
    calls = []

    def fails(v):
        calls.append(v)
        return 99 in v

    cut = smaller(list(range(100)), fails, checks=5)
    assert len(calls) == 5 and 99 in cut
