"""A benchmark's history in the terminal: one row per run, its median and 95% interval drawn on
a shared axis, and the change points between rows.

Drawn with rich text rather than a plotting library: an interval per row reads well in any
terminal and CI log, and needs no extra dependency.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from perflab.analysis.changepoints import Changes, Point, Step
from perflab.profile.frames import parse_frame
from perflab.units import format_signed_time, format_time

if TYPE_CHECKING:
    from perflab.results.history import StepProfile

CHART_WIDTH = 48
TOP_NODES = 4  # call paths listed under a step's differential profile


@dataclass(frozen=True)
class Scale:
    """What a history's values are: the column's name, how one prints, what a step up or down
    means, and the decimals of percentages (instruction counts repeat exactly: 0.3% matters)."""

    column: str
    format: Callable[[float], str]
    up: str
    down: str
    decimals: int = 1


TIME = Scale("time/call ±95% CI", format_time, "slower", "faster")
INSTRUCTIONS = Scale(
    "instructions/call ± range", lambda value: f"{value:,.0f}", "more instructions", "fewer instructions", decimals=2
)


def render(
    points: Sequence[Point],
    console: Console,
    title: str,
    dates: Sequence[str],
    changes: Changes,
    notes: Sequence[str] = (),
    profiles: Mapping[int, StepProfile] | None = None,
    scale: Scale = TIME,
) -> None:
    """``profiles``: the differential profile around each step (by the step's index), shown under it.
    ``scale``: what the points are (TIME, or INSTRUCTIONS per call)."""
    low, high = _axis(points)
    table = Table(title=escape(title), title_justify="left", show_edge=False)
    for column in ("commit", "date", scale.column):
        table.add_column(column, no_wrap=True)
    table.add_column(f"{scale.format(low)} … {scale.format(high)} (log scale)", no_wrap=True)
    steps_at = {step.index: step for step in changes.steps}
    for index, (point, date) in enumerate(zip(points, dates)):
        step = steps_at.get(index)
        if step is not None:
            table.add_row("", "", "", _step_text(step, scale), end_section=False)
        table.add_row(escape(point.label), date, _value_text(point, scale), _bar(point, low, high))
    console.print(table)
    for step in changes.steps:
        console.print(f"change point: {_describe(step, scale.decimals)}", highlight=False)
        if profiles and step.index in profiles:
            _profile_lines(console, profiles[step.index])
    if not changes.steps:
        console.print("no change point: the series is consistent with one level", highlight=False)
    for transient in changes.transients:
        console.print(
            f"[dim]transient (not a change point): {_signed(transient.ratio, scale.decimals)} from "
            f"{escape(transient.first)} "
            f"to {escape(transient.last)}, then back to the previous level[/]",
            highlight=False,
        )
    for note in notes:
        console.print(f"[dim]{escape(note)}[/]", highlight=False)


def _describe(step: Step, decimals: int = 1) -> str:
    tentative = " (tentative: too few runs at the new level to confirm it yet)" if step.tentative else ""
    ratio = step.ratio
    return (
        f"{_signed(ratio.value, decimals)} [95% CI {_signed(ratio.low, decimals)}, "
        f"{_signed(ratio.high, decimals)}] "
        f"after {escape(step.before)}, at or before {escape(step.after)}{tentative}"
    )


def _profile_lines(console: Console, found: StepProfile) -> None:
    """Where the step's time went (the diff's one-sentence explanation, then the call paths whose
    time per call changed most), or one dim line saying how to get profiles."""
    if found.diff is None:
        console.print(f"  [dim]{escape(found.note)}[/]", highlight=False)
        return
    console.print(f"  profiles: {escape(found.diff.explain())}", highlight=False)
    nodes = sorted(
        (n for n in found.diff.nodes.values() if n.path and n.difference.value), key=lambda n: -abs(n.difference.value)
    )
    for node in nodes[:TOP_NODES]:
        d = node.difference
        console.print(
            f"    {format_signed_time(d.value):>10} [95% CI {format_signed_time(d.low)}, {format_signed_time(d.high)}]  "
            f"{escape(' > '.join(parse_frame(label).name for label in node.path))}",
            highlight=False,
        )


def _step_text(step: Step, scale: Scale = TIME) -> Text:
    """A short marker between the rows; the full description follows the table."""
    slower, d = step.ratio.value > 1, scale.decimals
    text = (
        f"{'▲ ' + scale.up if slower else '▼ ' + scale.down} {_signed(step.ratio.value, d)} "
        f"[{_signed(step.ratio.low, d)}, {_signed(step.ratio.high, d)}]{' ?' if step.tentative else ''}"
    )
    return Text(text, style="bold red" if slower else "bold green")


def _signed(ratio: float, decimals: int = 1) -> str:
    return f"{ratio - 1:+.{decimals}%}"


def _value_text(point: Point, scale: Scale = TIME) -> str:
    if point.low is None or point.high is None:
        return f"{scale.format(point.value)} ± ?"
    half = max(point.high - point.value, point.value - point.low) / point.value
    return f"{scale.format(point.value)} ± {half:.{scale.decimals}%}"


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
        value = min(max(value, low), high)  # a bound at or below zero (very few processes) pins to the edge
        return round(math.log(value / low) / math.log(high / low) * (CHART_WIDTH - 1))

    cells = [" "] * CHART_WIDTH
    if point.low is not None and point.high is not None:
        left, right = column(point.low), column(point.high)
        for i in range(left, right + 1):
            cells[i] = "─"
        cells[left], cells[right] = "├", "┤"
    cells[column(point.value)] = "●"
    return Text("".join(cells), style="cyan")
