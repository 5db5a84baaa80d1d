"""The rare branches of generated inputs (perflab.bench.worker.derived_strategies.one_in): drawn about as often
as the fuzzing note says, and left by Hypothesis's shrinking unless a failure needs them."""

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import strategies as st  # noqa: E402

from perflab.bench.worker.derived_strategies import one_in  # noqa: E402


@pytest.mark.parametrize("n", [4, 5, 10])
def test_one_in_n_is_drawn_about_one_time_in_n(n):
    drawn = []

    @hypothesis.settings(max_examples=1000, database=None)
    @hypothesis.seed(0)
    @hypothesis.given(st.data())
    def draws(data):
        data.draw(st.lists(st.integers()))  # as in fuzzing: other draws around it
        drawn.append(data.draw(one_in(st, n)))

    draws()
    share = sum(drawn) / len(drawn)
    assert 0.5 / n <= share <= 1.6 / n, share  # at 0 of st.integers(0, n - 1) it was 0.35-0.45


def test_shrinking_leaves_the_rare_branch_when_the_failure_does_not_need_it():
    shrunk = []

    @hypothesis.settings(max_examples=300, database=None, report_multiple_bugs=False)
    @hypothesis.seed(0)
    @hypothesis.given(st.data())
    def fails_on_long_lists(data):
        rare = data.draw(one_in(st, 4))
        items = data.draw(st.lists(st.integers(), min_size=0, max_size=30))
        if len(items) > 3:
            shrunk.append(rare)
            raise AssertionError

    with pytest.raises(AssertionError):
        fails_on_long_lists()
    assert shrunk[-1] is False  # the replayed, shrunk example: the common branch
