"""perflab used as a hostile user would (issue 11): every probe through the real command line, in
real subprocesses, with real git repositories, SQLite files and signals. What each test holds:
no input is overwritten, nothing measured is lost, a signal leaves no process or worktree behind,
and every bad input is one line naming it, never a traceback."""

from __future__ import annotations

from support.store_results import synthetic_result


def test_an_interval_wider_than_the_value_after_few_rounds_says_not_enough_rounds():
    from rich.console import Console

    from perflab.render.terminal import results

    shown = {}
    for processes in (2, 8):
        result = synthetic_result(processes=processes, noise=3.0, seed=4)
        assert result.cells[0].estimates.median.relative_half_width > 1  # wider than the value itself
        console = Console(record=True, width=200)
        results.render(result, console)
        shown[processes] = console.export_text()
    [row] = [line for line in shown[2].splitlines() if line.startswith("│ SMALL")]
    assert "not enough rounds" in row and "±" not in row
    assert "not enough rounds" not in shown[8]  # enough rounds: the wide interval is shown as it is


def test_ratios_and_percentages_read_as_numbers():
    from perflab.units import format_factor, format_percent

    assert format_factor(4530.2) == "4,530" and format_factor(0.5) == "0.5" and format_factor(12.34) == "12.3"
    assert format_percent(0.0001) == "0.01%" and format_percent(0.01) == "1.0%" and format_percent(0.5) == "50.0%"
