"""The value-length rules (perflab.measure.value_length), by simulation with fixed seeds."""

from __future__ import annotations

import random

import pytest

from perflab.measure import value_length
from perflab.measure.value_length import CaseLength, check


def pairs(rng: random.Random, count: int, effect: float, noise: float) -> tuple[list, list]:
    """``count`` (wall, cpu) per-call values at two lengths, the long ones ``effect`` (relative)
    cheaper per call, each value off by lognormal noise of ``noise``."""
    short = [(1.0, rng.lognormvariate(0, noise)) for _ in range(count)]
    long = [(1.0, (1 - effect) * rng.lognormvariate(0, noise)) for _ in range(count)]
    return short, long


@pytest.mark.parametrize("count", [3, 5, 10])
@pytest.mark.parametrize("noise", [0.01, 0.05, 0.2])
def test_noise_alone_rarely_lengthens_the_values(count, noise):
    rng = random.Random(count * 100 + int(noise * 1000))
    moved = sum(check("a", *pairs(rng, count, 0.0, noise), 1, 4).moved for _ in range(2000))
    assert moved / 2000 <= 0.005


@pytest.mark.parametrize(("effect", "noise"), [(0.05, 0.01), (0.1, 0.02), (0.35, 0.1)])
def test_a_real_length_effect_is_found_in_ten_pairs(effect, noise):
    rng = random.Random(7)
    found = sum(check("a", *pairs(rng, 10, effect, noise), 1, 4).moved for _ in range(500))
    assert found / 500 >= 0.95


def test_an_effect_within_the_tolerance_is_no_move():
    rng = random.Random(3)
    moved = sum(check("a", *pairs(rng, 10, 0.01, 0.001), 1, 4).moved for _ in range(500))
    assert moved == 0


def test_too_few_pairs_give_no_check():
    rng = random.Random(0)
    assert check("a", *pairs(rng, value_length.MIN_CHECK_PAIRS - 1, 0.5, 0.01), 1, 4) is None


def test_a_common_length_holds_every_side_to_whole_calls_within_the_match():
    length = CaseLength(0.005, settled=True)
    per_call = {"a": 0.024, "b": 0.017}  # 0.024 s alone: b's whole calls are 0.017 or 0.034
    common = length.common_length(per_call)
    for seconds in per_call.values():
        assert abs(value_length.loops_for(common, seconds) * seconds / common - 1) <= value_length.MATCH
    assert common >= 0.024


def test_a_length_that_keeps_moving_stops_at_the_limit_and_says_why():
    length = CaseLength(0.005)
    moved = value_length.LengthCheck("a", short=0.4, long=1.6, ratio=0.7, p_value=0.0, pairs=10)
    length.after_check([moved], affordable=lambda short: True)
    assert length.settled and length.length == 1.6
    assert "still moved it; longer ones would exceed the length limit" in (length.warning("x") or "")


def test_interruptions_of_whole_values_alike_at_both_lengths_are_no_move():
    rng = random.Random(12)

    def value() -> float:
        return (1.5 if rng.random() < 0.1 else 1.0) * rng.lognormvariate(0, 0.02)

    moved = sum(
        check("a", [(1.0, value()) for _ in range(10)], [(1.0, value()) for _ in range(10)], 1, 4).moved
        for _ in range(2000)
    )
    assert moved / 2000 <= 0.005


def test_a_median_moved_by_the_length_is_found_even_where_pairs_disagree():
    """Long values whose median is 8% above the short ones', each pair's ratio noisy: the medians'
    test finds what the pairs' mean, pulled by a few wild pairs, may not."""
    rng = random.Random(13)
    found = 0
    for _ in range(500):
        short = [(1.0, rng.lognormvariate(0, 0.01) * (3.0 if rng.random() < 0.2 else 1.0)) for _ in range(10)]
        long = [(1.0, 1.08 * rng.lognormvariate(0, 0.01)) for _ in range(10)]
        found += check("a", short, long, 1, 4).moved
    assert found / 500 >= 0.8  # the misses: three or more wild short values of ten widen their MAD


def test_a_slow_case_gets_fewer_values_a_process_not_fewer_rounds():
    # Short values: the usual count; long ones: MIN_VALUES at least, while the budget allows them.
    assert value_length.values_per_process(20, 0.005) == 20
    assert value_length.values_per_process(20, 0.2) == value_length.MIN_VALUES
    assert value_length.values_per_process(20, 0.2, round_seconds=10.0, sides=2) == value_length.MIN_VALUES
    # A round's share of the budget (6 s) holds two sides' 4 s values once: one value each, never none.
    assert value_length.values_per_process(20, 4.0, round_seconds=6.0, sides=1) == 1
    assert value_length.values_per_process(20, 4.0, round_seconds=1.0, sides=2) == 1
    assert value_length.values_per_process(20, 1.0, round_seconds=6.0, sides=2) == 3


def test_a_call_that_fills_a_process_gets_no_warmups():
    assert value_length.warmups_for(2, 0.005) == 2
    assert value_length.warmups_for(2, value_length.SLOW_CALL) == 0
