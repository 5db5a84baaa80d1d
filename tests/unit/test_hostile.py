"""perflab used as a hostile user would (issue 11): every probe through the real command line, in
real subprocesses, with real git repositories, SQLite files and signals. What each test holds:
no input is overwritten, nothing measured is lost, a signal leaves no process or worktree behind,
and every bad input is one line naming it, never a traceback."""

from __future__ import annotations

from support.store_results import synthetic_result


def test_an_interval_wider_than_the_value_is_shown_as_its_bounds_and_marked():
    """'853 ns ± 115.6%' read as a negative lower bound: an interval of times is lopsided (it is
    widened on the log scale), so it is shown as [low, high], each in its own unit, and '!' marks
    it as wider than the precision target."""
    from rich.console import Console

    from perflab.render.terminal import results
    from perflab.units import format_times

    result = synthetic_result(processes=2, noise=3.0, seed=4)
    median = result.cells[0].estimates.median
    assert median.relative_half_width > 1  # wider than the value itself
    console = Console(record=True, width=250)
    results.render(result, console)
    [row] = [line for line in console.export_text().splitlines() if line.startswith("│ SMALL")]
    assert f"{format_times(median.value, median.low, median.high)} !" in row and "±" not in row


def test_ratios_and_percentages_read_as_numbers():
    from perflab.units import format_percent, format_ratio, format_times_factor

    assert format_times_factor(4530.2) == "4,530x" and format_times_factor(12.34) == "12.3x"
    assert format_times_factor(43.0) == "43.0x" and format_times_factor(0.5) == "0.500x"
    assert format_ratio(1 / 1.39, 1 / 1.43, 1 / 1.35) == "1.39x faster [1.35x, 1.43x]"
    assert format_ratio(1.22, 0.98, 1.3) == "1.22x slower [0.980x, 1.30x]"  # a bound in the other direction
    assert format_ratio(0.5, float("-inf"), float("inf")) == "2.00x faster [no interval]"
    assert format_percent(0.0001) == "0.01%" and format_percent(0.01) == "1.0%" and format_percent(0.5) == "50.0%"
    # A floor from 2 noisy rounds is astronomically large: two digits, not fifty that wrap a table.
    assert format_percent(5.1e47) == "5.1e+49%" and format_percent(123.0) == "12300.0%"
