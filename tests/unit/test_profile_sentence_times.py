"""The HTML report's table said 7.59 ms for a side and its profile sentence 6.64 ms: the sentence's
times are the reference's median and that times the paired ratio, which splits into the profile's
nodes, not the side's own median. Where so, the sentence names them."""

from __future__ import annotations

from pathlib import Path

from perflab.profile.diff import diff_profiles
from perflab.profile.model import Profile
from perflab.results.quantities import Interval

PROFILES = Path(__file__).resolve().parent.parent / "data" / "native_profiles"
PY_SPY = Profile.load(PROFILES / "json_dumps-NESTED-py-spy.profile.json")


def test_scaled_times_are_named_in_the_sentence():
    timed, difference = (6.64e-3, 6.64e-3 * 1.2), Interval(6.64e-3 * 0.2, 6.64e-3 * 0.1, 6.64e-3 * 0.3)
    sentence = diff_profiles(PY_SPY, PY_SPY, ("json", "orjson"), timed=timed, timed_difference=difference).explain()
    assert sentence.startswith(
        "orjson vs json: 6.64 ms -> 7.97 ms per call (json's median, and that times the measured ratio, "
        "not orjson's own median)"
    )


def test_each_sides_own_median_needs_no_words():
    sentence = diff_profiles(PY_SPY, PY_SPY, ("A", "B"), timed=(6.64e-3, 7.59e-3)).explain()
    assert sentence.startswith("B vs A: 6.64 ms -> 7.59 ms per call (")  # the interval follows
    assert "median" not in sentence
