"""The terminal view of ``perflab qualify``: per (case, contender) the A/A ratio, the rounds the
budget bought, the noise per round and the smallest change the gate detects."""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.analysis.detectable import POWER, Qualification, format_change
from perflab.results.model import RunResult
from perflab.units import format_percent


def render(qualification: Qualification, aa_runs: list[RunResult], console: Console) -> None:
    table = Table(
        title=f"what this runner can detect: {escape(qualification.benchmark)}, A/A at {qualification.max_time:g} s "
        "per contender",
        title_justify="left",
    )
    for column in ("case", "contender", "A/A [95% CI]", "rounds", "noise per round", f"detects ({POWER:.0%} power)"):
        table.add_column(column)
    shown = {(c.case, run.sides[c.contender]["contender"]): run.shown(c) for run in aa_runs for c in run.comparisons}
    for floor in qualification.floors:
        aa = shown[(floor.case, floor.contender)]
        table.add_row(
            escape(floor.case),
            escape(floor.contender),
            f"{aa.ratio} {escape(aa.verdict)}",
            str(floor.rounds),
            format_percent(math.expm1(floor.noise)) if math.isfinite(floor.noise) else "?",
            f">= {format_change(floor.change)}" if math.isfinite(floor.change) else "too few rounds",
        )
    console.print(table)
    console.print(
        f"[dim]A change is detected when check calls it faster or slower (false discovery rate "
        f"{qualification.alpha:.0%} across {len(qualification.floors)} cell(s), minimum effect "
        f"{qualification.min_effect:.0%}); the floor holds at this budget: a longer --max-time lowers it "
        "(check says beside each floor the budget that detects a smaller change).[/]"
    )
