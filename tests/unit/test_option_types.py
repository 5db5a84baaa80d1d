"""The argparse types shared by the command line and the pytest plugin refuse hostile values."""

import argparse

import pytest

from perflab.option_types import percentage, seconds, whole_number


@pytest.mark.parametrize("text, value", [("1", 0.01), ("0.5%", 0.005), ("99", 0.99)])
def test_percentages(text, value):
    assert percentage(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["0", "100", "-5", "nan", "inf", "1e309", "five", ""])
def test_bad_percentages(text):
    with pytest.raises(argparse.ArgumentTypeError):
        percentage(text)


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "-inf", "1e309", "soon"])
def test_bad_seconds(text):
    with pytest.raises(argparse.ArgumentTypeError):
        seconds(text)


@pytest.mark.parametrize("text", ["1e300", "604801"])
def test_seconds_beyond_a_week_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="more than a week"):
        seconds(text)


@pytest.mark.parametrize("text", ["1", "-2", "x", "1.5", "10000001"])
def test_whole_numbers_in_range(text):
    with pytest.raises(argparse.ArgumentTypeError):
        whole_number(2)(text)
    assert whole_number(2)("2") == 2
