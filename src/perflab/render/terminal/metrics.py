"""The terminal view of ``--metric``: one table per metric after the timing table, then warnings."""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.analysis.counts import DISAGREEMENT_FACTOR, ProcessSpread
from perflab.metrics import Measured
from perflab.metrics.counters import HARDWARE
from perflab.metrics.memory import ALLOCATION_RUNS
from perflab.render import cache_tables
from perflab.results.model import RunResult
from perflab.results.verdicts import LESS_MEMORY, MORE_MEMORY, SAME_MEMORY
from perflab.units import format_bytes, format_bytes_range, format_count


def render(result: RunResult, console: Console, measured: Measured) -> None:
    if measured.instructions is not None:
        _instructions(result, measured, console)
    if measured.memory is not None:
        _memory(result, measured, console)
    if measured.cache is not None:
        _cache(result, measured, console)
    if measured.counters is not None or measured.counters_unsupported:
        _counters(measured, console)
    for line in measured.errors:
        console.print(f"[red]error[/] {escape(line)}", highlight=False)


def _instructions(result: RunResult, measured: Measured, console: Console) -> None:
    table = Table(title="instructions per call (valgrind --tool=callgrind)", title_justify="left")
    for column in (
        "case",
        "contender",
        "instructions/call",
        "spread",
        "calls x runs",
        f"instructions vs {result.reference}",
        f"time vs {result.reference}",
    ):
        table.add_column(escape(column))
    counted = measured.instructions or []
    counts = {(c.case, c.contender): c for c in counted}
    times = {(c.case, c.contender): c.comparison.ratio.value for c in result.comparisons}
    for count in counted:
        reference = counts.get((count.case, result.reference))
        ratio = (
            count.median / reference.median
            if count.per_call and reference and reference.per_call and reference.median
            else math.nan
        )
        time_ratio = times.get((count.case, count.contender))
        table.add_row(
            escape(count.case),
            escape(count.contender),
            f"{count.median:,.0f}" if count.per_call else "[red]failed[/]",
            f"{count.spread:.3%}" if count.per_call else "",
            f"{count.loops} x {len(count.per_call)}",
            _ratio(ratio) if count.contender != result.reference else "",
            _ratio(time_ratio) if time_ratio is not None else "",
        )
    console.print(table)
    console.print(
        "[dim]per call = (instructions of N calls - of 0 calls) / N in one process, between "
        "region markers; spread = (max - min) / median over separate runs[/]",
        highlight=False,
    )
    for d in measured.disagreements:
        console.print(
            f"[yellow]warning[/] {escape(d.case)}/{escape(d.contender)}: instructions "
            f"{_ratio(d.instruction_ratio)} but wall time {_ratio(d.time_ratio)} of "
            f"{escape(result.reference)} (they differ by more than {DISAGREEMENT_FACTOR:g}x): "
            "instruction counts miss I/O, system calls, waiting and cache effects; trust the wall time",
            highlight=False,
        )


def _cache(result: RunResult, measured: Measured, console: Console) -> None:
    for case in cache_tables.case_tables(result, measured):
        console.print(_table(f"{cache_tables.TITLE}: {case.case}", case.header, case.rows))
        if case.caches:
            console.print(f"[dim]simulated caches: {escape('; '.join(case.caches))}[/]", highlight=False)
        for functions in case.functions:
            if functions.rows:
                title = f"functions with the most simulated cache misses, per call: {case.case}/{functions.contender}"
                console.print(_table(title, functions.header, functions.rows))
    console.print(f"[dim]{escape(cache_tables.NOTE)}[/]", highlight=False)


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = Table(title=escape(title), title_justify="left")
    for column in header:
        table.add_column(escape(column), justify="left" if column in header[:1] else "right")
    for row in rows:
        table.add_row(*map(escape, row))
    return table


_MEMORY_STYLE = {MORE_MEMORY: "red", LESS_MEMORY: "green", SAME_MEMORY: "dim"}


def _memory(result: RunResult, measured: Measured, console: Console) -> None:
    table = Table(title="memory (memray; tracemalloc; the worker's peak RSS)", title_justify="left")
    for column in (
        "case",
        "contender",
        "allocated/call [range]",
        "peak [range]",
        f"allocated/call vs {escape(result.reference)} [range]",
        "memory verdict",
        "peak RSS",
        "RSS growth",
        "peak traced",
        "retained/call",
        "calls",
    ):
        table.add_column(column)
    comparisons = {(c.case, c.contender): c for c in result.comparisons}
    for use in measured.memory or []:
        if use.error:
            table.add_row(escape(use.case), escape(use.contender), "[red]failed[/]", *[""] * 7, str(use.loops))
            continue
        comparison = comparisons.get((use.case, use.contender))
        shown = result.memory_shown(comparison) if comparison is not None else None
        table.add_row(
            escape(use.case),
            escape(use.contender),
            _bytes_range(use.allocated),
            _bytes_range(use.peak),
            escape(shown.ratio) if shown else "",
            (f"[{_MEMORY_STYLE[shown.verdict]}]{escape(shown.verdict)}[/]" if shown else ""),
            _bytes(use.peak_rss),
            _bytes(use.rss_growth),
            _bytes(use.peak_traced),
            _bytes(use.retained_per_call),
            str(use.loops),
        )
    console.print(table)
    console.print(
        f"[dim]allocated/call: bytes allocated per call, freed or not, Python and native (memray), the "
        f"median and range over {ALLOCATION_RUNS} processes; peak: the most of it live at once during the calls; "
        "peak RSS: the worker process's peak resident memory (interpreter, module, input and "
        "calls); RSS growth: how far the calls raised it; peak traced: most memory Python's "
        "allocators held at once during the calls (above the start); retained/call: traced memory "
        "still held after the calls / calls[/]",
        highlight=False,
    )


def _counters(measured: Measured, console: Console) -> None:
    if measured.counters_unsupported:
        console.print(
            f"hardware counters: not supported on this machine (perf stat: {escape(measured.counters_unsupported)})",
            highlight=False,
        )
    if not measured.counters:
        return
    events = [
        e
        for e in ("cycles", "instructions", "branch-misses", "cache-misses", "context-switches", "page-faults")
        if any(e in r.per_call for r in measured.counters)
    ]
    table = Table(title="counters per call (perf stat, N calls - 0 calls)", title_justify="left")
    for column in ("case", "contender", *events, *(["IPC"] if "cycles" in events else []), "calls"):
        table.add_column(column)
    for reading in measured.counters:
        values = [format_count(reading.per_call.get(e)) for e in events]
        ipc = [f"{reading.ipc:.2f}" if reading.ipc else ""] if "cycles" in events else []
        table.add_row(
            escape(reading.case),
            escape(reading.contender),
            *(values if not reading.error else ["[red]failed[/]"] + [""] * (len(events) - 1)),
            *ipc,
            str(reading.loops),
        )
    console.print(table)
    if not any(e in events for e in HARDWARE):
        console.print(
            "[dim]kernel events only; they count per process, so small per-call values are mostly "
            "start-up differences[/]",
            highlight=False,
        )


def _ratio(ratio: float | None) -> str:
    return f"{ratio:.4g}x" if ratio is not None and math.isfinite(ratio) else ""


def _bytes(value: float | None) -> str:
    return "" if value is None else format_bytes(value)


def _bytes_range(spread: ProcessSpread | None) -> str:
    if spread is None:
        return ""
    return format_bytes_range(spread.value, spread.low, spread.high)
