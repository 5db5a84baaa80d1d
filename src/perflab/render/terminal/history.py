"""A benchmark's history in the terminal: one row per run, its median and 95% interval drawn on
a shared axis, and the change points between rows.

Drawn with rich text rather than a plotting library: an interval per row reads well in any
terminal and CI log, and needs no extra dependency.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from perflab.analysis.changepoints import Changes, Point, Step
from perflab.profile.frames import parse_frame
from perflab.results.quantities import Interval
from perflab.units import (
    MEMORY_WORDS,
    format_bytes,
    format_ratio,
    format_ratio_estimate,
    format_signed_time,
    format_time,
    format_times,
)

if TYPE_CHECKING:
    from perflab.results.history import StepProfile

CHART_WIDTH = 48
TOP_NODES = 4  # call paths listed under a step's differential profile


@dataclass(frozen=True)
class Scale:
    """Instruction counts per call: a value, its range, and a change of level as a signed
    percentage ('▲ more instructions +0.31%'): counts are not speed, and repeat exactly (0.3%
    matters). Times are _TimeScale."""

    column: str = "instructions/call ± range"
    decimals: int = 2

    def format(self, value: float) -> str:
        return f"{value:,.0f}"

    def change(self, ratio: float) -> str:
        return f"{ratio - 1:+.{self.decimals}%}" if math.isfinite(ratio) else "?"

    def change_interval(self, ratio: Interval) -> str:
        return f"{self.change(ratio.value)} [95% CI {self.change(ratio.low)}, {self.change(ratio.high)}]"

    def step_words(self, slower: bool) -> str:
        return "more instructions " if slower else "fewer instructions "

    def value_text(self, point: Point) -> str:
        if point.low is None or point.high is None:
            return f"{self.format(point.value)} ± ?"
        half = max(point.high - point.value, point.value - point.low) / point.value
        return f"{self.format(point.value)} ± {half:.{self.decimals}%}"


@dataclass(frozen=True)
class _TimeScale(Scale):
    """Times per call, and their changes as every output writes a time ratio: '1.10x slower'."""

    column: str = "time/call [95% CI]"

    def format(self, value: float) -> str:
        return format_time(value)

    def change(self, ratio: float) -> str:
        return format_ratio_estimate(ratio)

    def change_interval(self, ratio: Interval) -> str:
        return format_ratio(ratio.value, ratio.low, ratio.high).replace(" [", " [95% CI ")

    def step_words(self, slower: bool) -> str:
        return ""  # "slower" / "faster" is in the ratio

    def value_text(self, point: Point) -> str:  # an interval of times is not symmetric
        if point.low is None or point.high is None:
            return escape(f"{format_time(point.value)} [no interval]")
        return escape(format_times(point.value, point.low, point.high))


@dataclass(frozen=True)
class _MemoryScale(Scale):
    """Bytes allocated per call (memray), with their range over processes: like instruction counts."""

    column: str = "allocated/call ± range"

    def format(self, value: float) -> str:
        return format_bytes(value)

    def change(self, ratio: float) -> str:  # as run and compare write it: '2.00x more memory'
        return format_ratio_estimate(ratio, MEMORY_WORDS)

    def change_interval(self, ratio: Interval) -> str:
        return format_ratio(ratio.value, ratio.low, ratio.high, MEMORY_WORDS).replace(" [", " [95% CI ")

    def step_words(self, slower: bool) -> str:
        return ""  # "more memory" / "less memory" is in the ratio


TIME = _TimeScale()
INSTRUCTIONS = Scale()
MEMORY = _MemoryScale()
SCALES = {"time": TIME, "instructions": INSTRUCTIONS, "memory": MEMORY}  # by history --metric


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
    ``scale``: what the points are (TIME, INSTRUCTIONS or MEMORY per call)."""
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
        table.add_row(escape(point.label), date, scale.value_text(point), _bar(point, low, high))
    console.print(table)
    for step in changes.steps:
        console.print(f"change point: {_describe(step, scale)}", highlight=False)
        if profiles and step.index in profiles:
            _profile_lines(console, profiles[step.index])
    if not changes.steps:
        console.print(changes.none_found(), highlight=False)
    for transient in changes.transients:
        console.print(
            f"[dim]transient (not a change point): {scale.change(transient.ratio)} from "
            f"{escape(transient.first)} "
            f"to {escape(transient.last)}, then back to the previous level[/]",
            highlight=False,
        )
    for note in notes:
        console.print(f"[dim]{escape(note)}[/]", highlight=False)


def _describe(step: Step, scale: Scale) -> str:
    tentative = " (tentative: too few runs at the new level to confirm it yet)" if step.tentative else ""
    return f"{escape(scale.change_interval(step.ratio))} after {escape(step.before)}, at or before {escape(step.after)}{tentative}"


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


def step_text(step: Step, scale: Scale = TIME) -> str:
    """A step in a few words: '▲ more instructions +0.31% [+0.30%, +0.32%]', '▲ 2.00x more memory [2.00x, 2.00x]'
    ('?': tentative)."""
    slower = step.ratio.value > 1
    change = scale.change_interval(step.ratio).replace("95% CI ", "")
    return f"{'▲' if slower else '▼'} {scale.step_words(slower)}{change}" + (" ?" if step.tentative else "")


def _step_text(step: Step, scale: Scale = TIME) -> Text:
    """A short marker between the rows; the full description follows the table."""
    return Text(step_text(step, scale), style="bold red" if step.ratio.value > 1 else "bold green")


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
