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

from perflab.changepoints import Point, Step
from perflab.units import format_time

CHART_WIDTH = 48


def render(console: Console, title: str, points: Sequence[Point], dates: Sequence[str],
           steps: Sequence[Step], notes: Sequence[str] = ()) -> None:
    low, high = _axis(points)
    table = Table(title=escape(title), title_justify="left", show_edge=False)
    for column in ("commit", "date", "time/call ±95% CI"):
        table.add_column(column)
    table.add_column(f"{format_time(low)} … {format_time(high)}", no_wrap=True)
    steps_at = {step.index: step for step in steps}
    for index, (point, date) in enumerate(zip(points, dates)):
        step = steps_at.get(index)
        if step is not None:
            table.add_row("", "", "", _step_text(step), end_section=False)
        table.add_row(escape(point.label), date, _value_text(point), _bar(point, low, high))
    console.print(table)
    if steps:
        for step in steps:
            console.print(f"change point: {_describe(step)}", highlight=False)
    else:
        console.print("no change point: the series is consistent with one level", highlight=False)
    for note in notes:
        console.print(f"[dim]{escape(note)}[/]", highlight=False)


def _describe(step: Step) -> str:
    return (f"{_signed(step.ratio.value)} [95% CI {_signed(step.ratio.low)}, {_signed(step.ratio.high)}] "
            f"after {step.before}, at or before {step.after}")


def _step_text(step: Step) -> Text:
    style = "bold red" if step.ratio.value > 1 else "bold green"
    return Text(f"▲ slower {_describe(step)}" if step.ratio.value > 1 else f"▼ faster {_describe(step)}",
                style=style)


def _signed(ratio: float) -> str:
    return f"{ratio - 1:+.1%}"


def _value_text(point: Point) -> str:
    if point.low is None or point.high is None:
        return f"{format_time(point.value)} ± ?"
    half = max(point.high - point.value, point.value - point.low) / point.value
    return f"{format_time(point.value)} ± {half:.1%}"


def _axis(points: Sequence[Point]) -> tuple[float, float]:
    values = [v for p in points for v in (p.value, p.low, p.high) if v is not None and math.isfinite(v)]
    low, high = min(values), max(values)
    if high == low:
        high, low = high * 1.01, low * 0.99
    return low, high


def _bar(point: Point, low: float, high: float) -> Text:
    """├───●───┤ placed on the shared axis (points without an interval show only ●)."""
    def column(value: float) -> int:
        return round((value - low) / (high - low) * (CHART_WIDTH - 1))
    cells = [" "] * CHART_WIDTH
    if point.low is not None and point.high is not None:
        left, right = column(point.low), column(point.high)
        for i in range(left, right + 1):
            cells[i] = "─"
        cells[left], cells[right] = "├", "┤"
    cells[column(point.value)] = "●"
    return Text("".join(cells), style="cyan")
