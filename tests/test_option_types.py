"""The argparse types shared by the command line and the pytest plugin refuse hostile values."""

import argparse

import pytest

from conftest import run_perflab
from perflab.option_types import percentage, positive_seconds


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
        positive_seconds(text)


def test_the_command_line_refuses_a_nan_budget():
    done = run_perflab("run", "json_dumps", "--max-time", "nan")
    assert done.returncode == 2
    assert "--max-time: 'nan' must be a positive, finite number of seconds" in done.stderr
