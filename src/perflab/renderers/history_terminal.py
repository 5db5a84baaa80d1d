"""A benchmark's history in the terminal: one row per run, its median and 95% interval drawn on
a shared axis, and the change points between rows.

Drawn with rich text rather than a plotting library: an interval per row reads well in any
terminal and CI log, and needs no extra dependency.
"""

from __future__ import annotations

import math
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from perflab.changepoints import Changes, Point, Step
from perflab.units import format_time

CHART_WIDTH = 48


def render(console: Console, title: str, points: Sequence[Point], dates: Sequence[str],
           changes: Changes, notes: Sequence[str] = ()) -> None:
    low, high = _axis(points)
    table = Table(title=escape(title), title_justify="left", show_edge=False)
    for column in ("commit", "date", "time/call ±95% CI"):
        table.add_column(column, no_wrap=True)
    table.add_column(f"{format_time(low)} … {format_time(high)} (log scale)", no_wrap=True)
    steps_at = {step.index: step for step in changes.steps}
    for index, (point, date) in enumerate(zip(points, dates)):
        step = steps_at.get(index)
        if step is not None:
            table.add_row("", "", "", _step_text(step), end_section=False)
        table.add_row(escape(point.label), date, _value_text(point), _bar(point, low, high))
    console.print(table)
    for step in changes.steps:
        console.print(f"change point: {_describe(step)}", highlight=False)
    if not changes.steps:
        console.print("no change point: the series is consistent with one level", highlight=False)
    for transient in changes.transients:
        console.print(f"[dim]transient (not a change point): {_signed(transient.ratio)} from {escape(transient.first)} "
                      f"to {escape(transient.last)}, then back to the previous level[/]", highlight=False)
    for note in notes:
        console.print(f"[dim]{escape(note)}[/]", highlight=False)


def _describe(step: Step) -> str:
    tentative = " (tentative: too few runs at the new level to confirm it yet)" if step.tentative else ""
    return (f"{_signed(step.ratio.value)} [95% CI {_signed(step.ratio.low)}, {_signed(step.ratio.high)}] "
            f"after {escape(step.before)}, at or before {escape(step.after)}{tentative}")


def _step_text(step: Step) -> Text:
    """A short marker between the rows; the full description follows the table."""
    slower = step.ratio.value > 1
    text = (f"{'▲ slower' if slower else '▼ faster'} {_signed(step.ratio.value)} "
            f"[{_signed(step.ratio.low)}, {_signed(step.ratio.high)}]{' ?' if step.tentative else ''}")
    return Text(text, style="bold red" if slower else "bold green")


def _signed(ratio: float) -> str:
    return f"{ratio - 1:+.1%}"


def _value_text(point: Point) -> str:
    if point.low is None or point.high is None:
        return f"{format_time(point.value)} ± ?"
    half = max(point.high - point.value, point.value - point.low) / point.value
    return f"{format_time(point.value)} ± {half:.1%}"


def _axis(points: Sequence[Point]) -> tuple[float, float]:
    values = [v for p in points for v in (p.value, p.low, p.high) if v is not None and math.isfinite(v) and v > 0]
    low, high = min(values), max(values)
    if high == low:
        high, low = high * 1.01, low * 0.99
    return low, high


def _bar(point: Point, low: float, high: float) -> Text:
    """├───●───┤ placed on the shared axis, logarithmic so that equal ratios look equal (points
    without an interval show only ●)."""
    def column(value: float) -> int:
        value = min(max(value, low), high)   # a bound at or below zero (very few processes) pins to the edge
        return round(math.log(value / low) / math.log(high / low) * (CHART_WIDTH - 1))
    cells = [" "] * CHART_WIDTH
    if point.low is not None and point.high is not None:
        left, right = column(point.low), column(point.high)
        for i in range(left, right + 1):
            cells[i] = "─"
        cells[left], cells[right] = "├", "┤"
    cells[column(point.value)] = "●"
    return Text("".join(cells), style="cyan")
