"""The in-process stopping rule and intervals of the pytest plugin, by simulation with fixed seeds."""

import numpy as np
import pytest

from perflab.pytest_plugin.sampling import BLOCKS, Sampler, SamplingSettings, blocks_of


def drive(sampler, seconds_per_call):
    """Feed the sampler the time ``loops`` calls would take at ``seconds_per_call(i)`` each."""
    i = 0
    while (loops := sampler.next_loops()) is not None:
        sampler.add(loops * seconds_per_call(i))
        i += 1
    return sampler


def test_calibration_sizes_values_to_the_value_time():
    sampler = drive(Sampler(SamplingSettings(value_time=0.005, max_time=10)), lambda i: 1e-6)
    assert sampler.loops == 5000
    assert len(sampler.warmups) == 2 and all(v == pytest.approx(1e-6) for v in sampler.values)


def test_identical_values_stop_at_the_first_look():
    sampler = drive(Sampler(SamplingSettings(max_time=10, precision=0.01)), lambda i: 1e-6)
    assert len(sampler.values) == BLOCKS and sampler.reached == 0


def test_max_time_zero_takes_min_rounds_only():
    noisy = np.random.default_rng(1).lognormal(0, 0.5, 1000)
    sampler = drive(Sampler(SamplingSettings(max_time=0, min_rounds=3)), lambda i: 1e-6 * noisy[i])
    assert len(sampler.values) == 3


def test_fixed_rounds_take_exactly_that_many_values():
    sampler = drive(Sampler(SamplingSettings(), loops=4, rounds=7, warmups=0), lambda i: 1e-3)
    assert len(sampler.values) == 7 and sampler.loops == 4 and not sampler.warmups


@pytest.mark.parametrize(
    "bad",
    [
        {"max_time": float("nan")},
        {"precision": 0},
        {"value_time": -1},
        {"min_rounds": 0},
        {"warmups": -1},
        {"max_time": float("inf")},
        {"min_rounds": True},
    ],
)
def test_settings_refuse_nonsense(bad):
    with pytest.raises(ValueError):
        SamplingSettings(**bad)


def test_blocks_are_contiguous_and_cover_every_value():
    values = list(range(23))
    blocks = blocks_of(values)
    assert len(blocks) == BLOCKS and [v for block in blocks for v in block] == values
    assert blocks_of([1.0, 2.0]) == [[1.0], [2.0]]
