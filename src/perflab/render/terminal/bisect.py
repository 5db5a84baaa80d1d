"""The terminal view of a bisection: each step's verdict, then the first bad commit."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.measure.bisect import Outcome
from perflab.render import gate_summaries as summaries
from perflab.units import counted, format_ratio, format_ratio_estimate


def render(outcome: Outcome, console: Console) -> None:
    value, low, high = outcome.confirmed_ratio
    console.print(
        f"regression confirmed on case [bold]{escape(outcome.case)}[/]: bad is {escape(format_ratio(value, low, high))} "
        f"than good (time ratio, 95% CI); {counted(outcome.commits, 'commit')} to search"
    )
    table = Table("commit", "subject", "vs good [95% CI]", "bad vs good in the same run", "verdict")
    for step in outcome.steps:
        verdict = (
            ("check: " if step.check else "")
            + ("bad" if step.bad else "good")
            + ("" if step.certain else " [yellow](uncertain)[/]")
            + (f" [bold red]{escape(step.equivalence.upper())}[/]" if step.equivalence else "")
        )
        table.add_row(
            step.commit[:12],
            escape(step.subject),
            escape(format_ratio(step.ratio, step.low, step.high)),
            format_ratio_estimate(step.regression),
            verdict,
        )
    if outcome.steps:
        console.print(table)
    console.print(
        f"[bold]first bad commit: {outcome.first_bad[:12]}[/] {escape(outcome.subject)} "
        f"({counted(outcome.measurements, 'measurement')})"
    )
    skipped = summaries.skipped_commits(outcome)
    if skipped:
        console.print(escape(skipped))
    console.print(escape(outcome.confirmation), style=None if outcome.certain else "yellow")
    also = summaries.also_regressed(outcome)
    if also:
        console.print(escape(also))
    for warning in outcome.warnings:
        console.print(f"[yellow]{escape(warning)}[/]")
