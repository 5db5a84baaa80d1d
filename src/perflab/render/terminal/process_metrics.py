"""The terminal table of what command contenders' processes used beside wall time."""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.bench.commands import INNER, MAX_RSS, SYSTEM, USER
from perflab.results.model import RunResult
from perflab.results.quantities import Interval
from perflab.units import format_ratio, format_times

_COLUMNS = {USER: "user CPU/run", SYSTEM: "system CPU/run", MAX_RSS: "peak RSS", INNER: "inner phase/run"}


def render(result: RunResult, console: Console) -> None:
    """Nothing when no contender is a command."""
    if not any(run.extra for cell in result.cells for run in cell.runs):
        return
    from perflab.measure import process_metrics  # the statistics (numpy), only when there is something to show

    rows = process_metrics.estimate(result)
    if not rows:
        return
    shown = [metric for metric in process_metrics.METRICS if any(metric in row.medians for row in rows)]
    table = Table(title="processes (median per run, 95% CI; the range where some runs read 0)", title_justify="left")
    for column in ("case", "contender", *(_COLUMNS[metric] for metric in shown)):
        table.add_column(escape(column))
    if INNER in shown:
        table.add_column(escape(f"inner vs {result.reference} [95% CI]"))
    for row in rows:
        cells = [_format(metric, row.medians[metric]) if metric in row.medians else "" for metric in shown]
        if row.rss_at_floor:  # Linux counts the spawning worker's peak in the program's
            cells[shown.index(MAX_RSS)] = f"<= {row.medians[MAX_RSS].value / 2**20:.3g} MiB (the worker's peak)"
        if INNER in shown:
            ratio = row.inner_ratio
            cells.append(escape(format_ratio(ratio.value, ratio.low, ratio.high)) if ratio else "")
        table.add_row(escape(row.case), escape(row.contender), *cells)
    console.print(table)


def _format(metric: str, interval: Interval) -> str:
    if metric != MAX_RSS:
        return escape(format_times(interval.value, interval.low, interval.high))
    if not (math.isfinite(interval.low) and math.isfinite(interval.high)):
        return escape(f"{interval.value / 2**20:.3g} MiB [no interval]")
    return f"{interval.value / 2**20:.3g} MiB [{interval.low / 2**20:.3g}, {interval.high / 2**20:.3g}]"
