"""The terminal view of a run: one table of estimates and verdicts, then what needs attention."""

from __future__ import annotations

import math

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.measure.timing_verdicts import floor_warning, shown_floor
from perflab.render.terminal import process_metrics
from perflab.results import stopped
from perflab.results.model import EQUIVALENT, INVALID, CaseComparison, Cell, RunResult
from perflab.results.quantities import Interval
from perflab.results.verdicts import COLOURS, REPEAT_ONLY, UNCHECKED
from perflab.results.warnings import PRECISION_MISSED, RunWarning, run_warnings
from perflab.units import counted, format_percent, format_rate, format_time, format_times

_VERDICT_STYLE = {verdict: colour.terminal for verdict, colour in COLOURS.items()}


_COMPACT_NOTE = 200  # characters of a difference a compact view keeps (a counterexample can be a whole document)


def render(result: RunResult, console: Console, compact: bool = False) -> None:
    """The table, then what needs attention. ``compact``: readable in 80 columns (``perflab demo``,
    whose report holds the rest): no times, throughputs or process metrics, no vertical borders,
    no "!" marks, and the notes that need attention only, each difference shortened."""
    columns = (
        "case",
        "contender",
        "time/call [95% CI]",
        "throughput [95% CI]",
        f"vs {result.reference} [95% CI]",
        "verdict",
        "equivalence",
    )
    comparisons = {(c.case, c.contender): c for c in result.comparisons}
    compared = {c.case for c in result.comparisons}
    rows: list[tuple[str, ...]] = []
    previous_case = None
    for cell in result.cells:
        rows.append(
            (
                escape(cell.case) if cell.case != previous_case else "",
                escape(cell.contender),
                # With ratios to watch, the stopping rule leaves times as wide as they are: no '!' there.
                _time(cell, None if cell.case in compared else result.settings["precision"]),
                _throughput(cell, result.work.get(cell.case)),
                *_comparison(result, comparisons.get((cell.case, cell.contender)), marked=not compact),
                _equivalence(result, cell),
            )
        )
        previous_case = cell.case
    table = _compact_table(result, rows) if compact else _table(result, columns, rows)
    console.print(table)
    if not compact:
        process_metrics.render(result, console)  # command contenders: CPU time, memory, inner phase
    for line in _notes(result, compact):
        console.print(line, highlight=False)


def _table(result: RunResult, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    # A column empty on every row (no work declared, one contender: a pyperf script) is left out.
    kept = [index for index in range(len(columns)) if index < 3 or any(row[index] for row in rows)]
    table = Table(title=f"{escape(result.benchmark)} ({escape(result.file)})", title_justify="left")
    for index in kept:
        table.add_column(escape(columns[index]))
    for row in rows:
        table.add_row(*(row[index] for index in kept), end_section=False)
    return table


def _compact_table(result: RunResult, rows: list[tuple[str, ...]]) -> Table:
    """Contender, ratio over its verdict, equivalence: 77 columns for the demo's longest names and
    verdicts, each line whole; the case in the title when there is one."""
    cases = {cell.case for cell in result.cells}
    title = escape(result.benchmark) + (f", case {escape(next(iter(cases)))}" if len(cases) == 1 else "")
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    if len(cases) > 1:
        table.add_column("case")
    table.add_column("contender", no_wrap=True)
    table.add_column(f"vs {escape(result.reference)} [95% CI], verdict")
    table.add_column("equivalence", max_width=16)  # "NOT EQUIVALENT (fuzzing)" wraps, the ratios need not
    for case, contender, _, _, ratio, verdict, equivalence in rows:
        compared = f"{ratio}\n{verdict}" if ratio else verdict
        table.add_row(*([case] if len(cases) > 1 else []), contender, compared, equivalence)
    return table


def _time(cell: Cell, precision: float | None) -> str:
    """The time per call; ``precision``: the target it is held to (None: the case's ratios are)."""
    if cell.skipped:
        return "[dim]skipped[/]"
    if cell.estimates is None:
        return "[red]failed[/]" if cell.error else "[dim]not measured[/]"
    median = cell.estimates.median
    text = escape(format_times(median.value, median.low, median.high))
    floor = shown_floor(cell)
    if floor is not None:
        text += f" [dim](floor {format_time(floor)})[/]"
    return text if precision is None else _mark_imprecise(text, median, precision)


def _mark_imprecise(text: str, interval: Interval, precision: float) -> str:
    """'!' beside an interval the stopping rule watched and left wider than the precision target."""
    return text if interval.relative_half_width <= precision else f"{text} [yellow]![/]"


def _throughput(cell: Cell, work: list | None) -> str:
    if not work or cell.estimates is None:
        return ""
    unit, amount = work
    median = cell.estimates.median
    # A rate is the reciprocal of the time: the time's high bound is the rate's low bound.
    rate = lambda seconds: format_rate(amount / seconds, unit) if seconds > 0 and math.isfinite(seconds) else "?"
    if not (math.isfinite(median.low) and math.isfinite(median.high)) or median.low <= 0:
        return escape(f"{rate(median.value)} [no interval]")
    return escape(f"{rate(median.value)} [{rate(median.high)}, {rate(median.low)}]")


def _comparison(result: RunResult, comparison: CaseComparison | None, marked: bool = True) -> tuple[str, str]:
    """The ratio and the verdict; ``marked``: with "!" beside a ratio wider than the precision target."""
    if comparison is None:
        return "", ""
    shown = result.shown(comparison)
    ratio = escape(shown.ratio)
    if shown.struck:
        ratio = f"[dim strike]{ratio}[/]"
    elif marked and comparison.case not in stopped.decided_cases(result):  # decided: precise enough for its size
        ratio = _mark_imprecise(ratio, comparison.comparison.ratio, result.settings["precision"])
    style = _VERDICT_STYLE.get(shown.verdict, "")
    if shown.verdict == REPEAT_ONLY:  # the caution is long: it is written under the table
        return ratio, f"[{style}]{shown.verdict} (see note)[/]"
    if shown.unchecked:  # as long: under the table too
        verdict = f"[{style}]{escape(shown.verdict)}[/]" if style else escape(shown.verdict)
        return ratio, f"{verdict} [yellow]({UNCHECKED}: see note)[/]"
    verdict = f"[{style}]{escape(shown.verdict)}[/]" if style else escape(shown.verdict)
    return ratio, verdict + (f" [dim]({escape(shown.detail)})[/]" if shown.detail else "")


def _equivalence(result: RunResult, cell: Cell) -> str:
    verdict = result.equivalence_of(cell.case, cell.contender)
    label = escape(result.equivalence_label(cell.case, cell.contender))
    if verdict is None:
        return f"[yellow]{label}[/]" if label else ""
    if verdict.status == EQUIVALENT and result.equivalent(cell.case, cell.contender):
        return f"[green]{label}[/]" + (" [dim](note)[/]" if verdict.note else "")
    if verdict.status in (EQUIVALENT, *INVALID):  # invalid here, by fuzzing or by the reference's timing
        return f"[bold red]{label}[/]"
    return f"[dim]{label}[/]"


def _notes(result: RunResult, compact: bool = False) -> list[str]:
    """What needs attention under the table; ``compact``: without the equivalence evidence, the
    floor and outlier lines (the report has them), each difference shortened."""
    lines = []
    notes: dict[tuple[str, str], list[str]] = {}
    for verdict in result.equivalence:
        where = f"{escape(verdict.case)}/{escape(verdict.contender)}"
        if verdict.status in INVALID:
            difference = verdict.difference or ""
            if compact and len(difference) > _COMPACT_NOTE:
                difference = difference[: _COMPACT_NOTE - 3] + "..."
            lines.append(
                f"[bold red]{escape(verdict.status.upper())}[/] {where}: {escape(difference)} "
                "(its speedup is not a valid result)"
            )
        elif verdict.note and not compact:
            notes.setdefault((verdict.contender, verdict.note), []).append(verdict.case)
    # Contenders with the same note on the same cases share one line (the demo's three JSON encoders
    # had the same fuzzing evidence, five lines long, three times).
    shared: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (contender, note), cases in notes.items():
        shared.setdefault((note, tuple(cases)), []).append(contender)
    for (note, on_cases), contenders in shared.items():
        lines.append(f"[dim]note[/] {escape(', '.join(contenders))} \\[{escape(', '.join(on_cases))}]: {escape(note)}")
    outliers = []
    for cell in result.cells:
        where = f"{escape(cell.case)}/{escape(cell.contender)}"
        floor = floor_warning(cell)
        if floor and not compact:
            lines.append(f"[yellow]floor[/] {where}: {escape(floor)}")
        if cell.error:
            lines.append(f"[red]error[/] {where}: {escape(cell.error)}")
        elif cell.skipped:
            lines.append(f"[dim]skipped[/] {where}: {escape(cell.skipped)}")
        elif cell.estimates and (cell.estimates.outlier_values or cell.estimates.outlier_processes):
            outliers.append(
                f"{where} {cell.estimates.outlier_values}/{cell.estimates.values} values, "
                f"{cell.estimates.outlier_processes}/{cell.estimates.processes} processes"
            )
    if outliers and not compact:
        lines.append("[dim]outliers beyond 3 IQR, kept in every estimate:[/] " + "; ".join(outliers))
    for comparison in result.comparisons:
        if comparison.caution and comparison.valid:
            lines.append(
                f"[yellow]repeat-only[/] {escape(comparison.case)}/{escape(comparison.contender)}: "
                f"{escape(comparison.caution)} (its steady-state speedup is struck out)"
            )
    for comparison in result.comparisons:
        unchecked = result.shown(comparison).unchecked
        if unchecked:
            lines.append(
                f"[yellow]{UNCHECKED}[/] {escape(comparison.case)}/{escape(comparison.contender)}: {escape(unchecked)}"
            )
    for unchecked in result.metadata.get("unchecked", []):  # results written before comparisons carried it
        lines.append(f"[yellow]{UNCHECKED}[/] {escape(unchecked)}")
    for contender in result.geometric_means:
        mean = result.mean_shown(contender)
        if mean is not None:
            lines.append(
                f"geometric mean over cases, {escape(contender)} vs {escape(result.reference)}: {escape(mean)}"
            )
    if result.build_spread is not None:
        lines.append(escape(result.build_spread.shown))
    warnings = run_warnings(result)
    lines.append(_precision_line(result, compact, next((w for w in warnings if w.kind == PRECISION_MISSED), None)))
    for path in result.metadata.get("changed_during_run", []):
        lines.append(
            f"[bold red]{escape(path)} changed during the run[/]: workers of different rounds "
            "loaded different versions of it, so these results mix them; run again"
        )
    lines += [f"[yellow]{escape(w.text)}[/]" for w in warnings if w.kind != PRECISION_MISSED]
    if result.interrupted:
        lines.append("[yellow]interrupted: the results above cover what was measured before Ctrl-C[/]")
    return lines


def _why_nothing_timed(result: RunResult) -> str:
    """The budget ran out before a measured round (round 0 only calibrates), or no cell could run."""
    if any(not cell.error and not cell.skipped for cell in result.cells):
        return (
            f"the time budget (--max-time {result.settings['max_time']:g} s) ran out before a measured "
            "round; the first round only calibrates: raise --max-time"
        )
    return "no contender could be timed"


def _precision_line(result: RunResult, compact: bool, missed_warning: RunWarning | None) -> str:
    """Whether the precision target was reached (``missed_warning``: run_warnings' when not);
    ``compact``: without the cells that missed it (every one, at a demo's budget) and the "!"
    marks, which a compact table does not show."""
    target = result.settings["precision"]
    measured = [c for c in result.cells if c.measured_runs()]
    missed = [c for c in measured if not c.target_reached and c.case not in stopped.decided_cases(result)]
    rounds = max((len(c.measured_runs()) for c in measured), default=0)
    calibrating = max((sum(run.calibration for run in c.runs) for c in measured), default=1)
    timing = (
        f"(+{counted(calibrating, 'calibration round')}) in {result.elapsed:.1f} s; "
        f"equivalence checks {result.equivalence_seconds:.1f} s"
    )
    if not measured:
        why = (
            "interrupted"
            if result.interrupted
            else escape(result.metadata.get("over_budget") or _why_nothing_timed(result))
        )
        return f"[yellow]nothing was timed[/] ({why})"
    if result.settings.get("clock") == "cpu":
        timing += "; times are the thread's CPU time (--clock cpu)"
    summary = f"{counted(rounds, 'round')} {timing}"
    said = stopped.summary(result)
    if missed_warning is None and said:  # "decided after 5 rounds (+1 calibration round) in 2.3 s; ..."
        return f"[green]{escape(said)}[/] {timing}"
    if missed_warning is None:
        return f"[green]precision target ±{format_percent(target)} reached[/] ({summary})"
    if compact:
        return f"[yellow]{escape(missed_warning.text)}[/] ({summary})"
    names = ", ".join(f"{escape(c.case)}/{escape(c.contender)}" for c in missed)
    return (
        f"[yellow]{escape(missed_warning.text)}[/]: {names} ({summary}; raise --max-time or relax --precision); "
        "[yellow]![/] marks what it watches (the ratios to the reference, else the times) where wider than the target"
    )
