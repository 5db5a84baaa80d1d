"""benchmark.compare in the pytest plugin sizes every contender's values to one common length."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from perflab.pytest_plugin.benchmark_api import BenchmarkFixture
from perflab.pytest_plugin.sampling import SamplingSettings


def test_a_long_call_and_a_short_one_get_values_of_one_length():
    """24 ms a call against 5 ms: one call a value each would be 24 ms against 5 ms values, which a
    busy machine's time slices stretch unequally; five calls of the short one match the long one."""
    settings = SamplingSettings(max_time=0.0, min_rounds=5, value_time=0.005)
    fixture = BenchmarkFixture(SimpleNamespace(name="t", nodeid="t.py::t"), settings, record=lambda record: None)
    # What timing `loops` calls of each gives: seconds per call times calls.
    timed = {"long": lambda loops: loops * 24e-3, "short": lambda loops: loops * 5e-3}
    rounds = fixture._interleaved(timed)
    (long_loops, long_values), (short_loops, _) = rounds["long"], rounds["short"]
    assert long_values == pytest.approx([24e-3] * len(long_values))
    assert short_loops * 5e-3 == pytest.approx(long_loops * 24e-3, rel=0.1)
