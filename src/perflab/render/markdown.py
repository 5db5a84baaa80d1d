"""Markdown for pull requests: the CI gate's verdict, the summary of a run or comparison, a bisection."""

from __future__ import annotations

import hashlib
import math
import re
from typing import TYPE_CHECKING

from perflab.analysis.gate import REGRESSION, CellCheck, CheckResult
from perflab.render import cache_tables
from perflab.render import gate_summaries as summaries
from perflab.render.printable import markdown_inert, printable
from perflab.results import stopped
from perflab.results.model import INVALID, RunResult
from perflab.results.warnings import PRECISION_MISSED, run_warnings
from perflab.units import format_percent, format_ratio, format_times

if TYPE_CHECKING:
    from perflab.measure.bisect import Outcome


def render_check(check: CheckResult, benchmark: str, baseline: str, current: str) -> str:
    """``baseline``/``current``: one-line Markdown descriptions of the two runs (commit, source),
    user strings in them already escaped (see ``code``)."""
    return "\n".join(_check_lines(check, benchmark, baseline, current, check.cells, [])) + "\n"


# The rows a pull-request comment shows open; the rest are folded (a suite has hundreds of cells).
COMMENT_ROWS = 10


def comment_marker(benchmark: str) -> str:
    """The hidden line that finds a benchmark's comment again on every push (the name hashed: a
    name holding ``-->`` must not end the HTML comment)."""
    return f"<!-- perflab check {hashlib.sha256(benchmark.encode()).hexdigest()[:16]} -->"


def render_comment(
    check: CheckResult, benchmark: str, baseline: str, current: str, links: dict[str, str], rows: int = COMMENT_ROWS
) -> str:
    """The sticky pull-request comment: the check's summary with regressions, then the largest
    changes, first; beyond ``rows`` cells the rest folded; ``links``: text -> address (the workflow
    run, its artifacts)."""
    order = sorted(check.cells, key=lambda cell: (cell.verdict != REGRESSION, -_size(cell.comparison.ratio.value)))
    lines = [comment_marker(benchmark), *_check_lines(check, benchmark, baseline, current, order[:rows], order[rows:])]
    if links:
        lines.append("")
        lines.append(" · ".join(f"[{_cell(text)}]({_address(url)})" for text, url in links.items()))
    return "\n".join(lines) + "\n"


def _size(ratio: float) -> float:
    """How large a change is, either direction (0: none measured)."""
    return abs(math.log(ratio)) if math.isfinite(ratio) and ratio > 0 else 0.0


def _address(url: str) -> str:
    """A link target that cannot end the link or hold a space."""
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


_HEADLINE_ICONS = {summaries.FAILED: ":x:", summaries.UNSETTLED: ":warning:", summaries.PASSED: ":white_check_mark:"}


def _check_lines(
    check: CheckResult, benchmark: str, baseline: str, current: str, shown: list[CellCheck], folded: list[CellCheck]
) -> list[str]:
    before, after, kind = summaries.headline(check)
    headline = f"### {_HEADLINE_ICONS[kind]} perflab: {before} in {code(benchmark)}{after}"
    lines = [headline, "", f"Baseline: {baseline}  ", f"Current: {current}", "", *_time_table(check, shown), ""]
    spread = summaries.build_spread(check)
    if spread:
        lines += [_cell(spread), ""]
    if folded:
        lines += [
            f"<details><summary>{len(folded)} more cell(s), smaller changes</summary>",
            "",
            *_time_table(check, folded),
            "",
            "</details>",
            "",
        ]
    if summaries.unqualified(check):
        lines += [
            "What this runner can detect is not known for every cell: `perflab qualify` with this benchmark, "
            'on this runner, says it beside every "no detectable difference".',
            "",
        ]
    if check.instructions:
        lines += [summaries.COUNTS_TITLE, "", *_table(summaries.COUNT_COLUMNS, summaries.count_rows(check)), ""]
    if check.memory:
        lines += [summaries.MEMORY_TITLE, "", *_table(summaries.MEMORY_COLUMNS, summaries.memory_rows(check)), ""]
    if check.not_compared:
        lines.append(f"Not compared (measured on one side only): {_cell(', '.join(check.not_compared))}")
    if check.selection:
        lines += ["", _cell(check.selection), *(f"- {_cell(line)}" for line in summaries.skipped_cells(check)), ""]
    for note in check.notes + check.warnings:
        lines.append(f"> :warning: {_cell(note)}")
    lines.append(f"<sub>{summaries.method(check)}</sub>")
    return lines


def _time_table(check: CheckResult, cells: list[CellCheck]) -> list[str]:
    return _table(summaries.TIME_COLUMNS, summaries.time_rows(check, cells))


def _table(columns: tuple[str, ...], rows: list[summaries.Row], code_first: bool = False) -> list[str]:
    """A table of a check or bisection: names (the first two cells) escaped, numbers right-aligned,
    the strong parts of a verdict in bold; ``code_first``: the first cell is a commit."""
    lines = ["| " + " | ".join(columns) + " |", "|---|---|" + "---:|" * (len(columns) - 3) + "---|"]
    for row in rows:
        first, second, *numbers = row.cells
        verdict = "".join(f"**{text}**" if strong else text for text, strong in row.verdict)
        cells = [code(first) if code_first else _cell(first), _cell(second), *numbers, verdict]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


# What a name could use to become a link, an image (``![x](https://...)`` loads a URL in every
# reader's browser), code or a new table column; HTML is written as entities. (Emphasis is left
# alone: ``*`` and ``_`` are common in names and cannot reach beyond the text.)
_MARKDOWN = re.compile(r"([\\`\[\]!|])")


def _cache_lines(result: RunResult) -> list[str]:
    """``--metric cache``: each case's counter table and the functions that miss the most."""
    lines = []
    for table in cache_tables.stored_tables(result):
        lines += ["", f"**{cache_tables.TITLE}: {_cell(table.case)}**", "", *_plain_table(table.header, table.rows)]
        for functions in table.functions:
            if functions.rows:
                title = f"functions with the most simulated cache misses, per call: {functions.contender}"
                lines += ["", f"<details><summary>{_cell(title)}</summary>", ""]
                lines += [*_plain_table(functions.header, functions.rows), "", "</details>"]
    return [*lines, "", f"<sub>{_cell(cache_tables.NOTE)}</sub>", ""] if lines else []


def _plain_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Every cell escaped, the first column left-aligned and the others (numbers) right-aligned."""
    return [
        "| " + " | ".join(map(_cell, header)) + " |",
        "|---|" + "---:|" * (len(header) - 1),
        *("| " + " | ".join(map(_cell, row)) + " |" for row in rows),
    ]


def _cell(text: str) -> str:
    """Text from user code or git, shown as written in a Markdown table or line: Markdown syntax
    escaped, HTML as entities, control characters (ESC, BEL) visible, no @mention, #reference or
    bare URL left live (they would notify people or link)."""
    text = printable(text).replace("\n", " ").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return markdown_inert(_MARKDOWN.sub(r"\\\1", text))


def code(text: str) -> str:
    """A name as inline code, shown literally whatever it holds: fenced by more backticks than it
    has in a row, ``|`` escaped (it would end a table cell even there), control characters visible."""
    text = printable(text).replace("\n", " ").replace("|", "\\|")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def render_result(result: RunResult) -> str:
    """A compact summary of a run or comparison: verdicts with CIs, equivalence, precision."""
    comparisons = {(c.case, c.contender): c for c in result.comparisons}
    memory = {key: result.memory_shown(comparison) for key, comparison in comparisons.items()}
    with_memory = any(memory.values())  # --metric memory: bytes allocated per call beside time
    lines = [
        f"### perflab: {code(result.benchmark)}, sides vs {code(result.reference)}",
        "",
        "| case | side | time/call [95% CI] | vs reference [95% CI] | verdict |"
        + (" allocated/call vs reference [range] | memory verdict |" if with_memory else ""),
        "|---|---|---:|---:|---|" + ("---:|---|" if with_memory else ""),
    ]
    for cell in result.cells:
        if cell.estimates is not None:
            median = cell.estimates.median
            time = format_times(median.value, median.low, median.high)
        else:
            time = _cell(cell.skipped or "failed")
        comparison = comparisons.get((cell.case, cell.contender))
        if comparison is None:
            ratio, verdict = "", "reference" if cell.contender == result.reference else ""
        else:
            shown = result.shown(comparison)
            ratio = f"~~{shown.ratio}~~" if shown.struck else shown.ratio
            verdict = f"**{shown.verdict}**" if shown.struck else shown.verdict
            if shown.detail:
                verdict += f" ({_cell(shown.detail)})"
        row = f"| {_cell(cell.case)} | {_cell(cell.contender)} | {time} | {ratio} | {verdict} |"
        if with_memory:
            shown_memory = memory.get((cell.case, cell.contender))
            row += f" {shown_memory.ratio} | {shown_memory.verdict} |" if shown_memory else "  |  |"
        lines.append(row)
    lines.append("")
    for entry in result.equivalence:
        if entry.status in INVALID:
            lines.append(
                f"- :x: **{entry.status}**: {code(entry.contender)} on {_cell(entry.case)}: "
                f"{_cell(entry.difference or '')}"
            )
    for name in result.geometric_means:
        mean = result.mean_shown(name)
        if mean is not None:
            lines.append(f"- geometric mean over cases, {code(name)}: {mean}")  # perflab's words only
    if result.build_spread is not None:
        lines.append(f"- {_cell(result.build_spread.shown)}")
    lines += _cache_lines(result)
    warnings = run_warnings(result)
    if not any(w.kind == PRECISION_MISSED for w in warnings) and "precision" in result.settings:
        said = stopped.summary(result)
        lines.append(
            f"- {said}" if said else f"- precision target ±{format_percent(result.settings['precision'])}: reached"
        )
    lines += [f"- :warning: {_cell(w.text)}" for w in warnings]
    python = result.metadata.get("python", {})
    lines.append(
        f"<sub>{result.elapsed:.0f} s (equivalence checks {result.equivalence_seconds:.0f} s) on "
        f"{_cell(result.metadata['machine']['cpu_model'])}, "
        f"Python {python.get('version', '?')}; verdicts at FDR {result.settings['alpha']:.0%} "
        f"and minimum effect {result.settings['min_effect']:.0%}.</sub>"
    )
    return "\n".join(lines) + "\n"


def render_bisect(outcome: Outcome) -> str:
    """``perflab bisect --markdown``: the first bad commit, how sure, and every step's ratio to good."""
    value, low, high = outcome.confirmed_ratio
    lines = [
        f"### perflab bisect: first bad commit {code(outcome.first_bad[:12])} {_cell(outcome.subject)}",
        "",
        f"On case {code(outcome.case)}, bad is {format_ratio(value, low, high)} than good (time ratio, 95% CI); "
        f"{summaries.searched(outcome)}.",
        "",
        *_table(summaries.BISECT_COLUMNS, summaries.bisect_rows(outcome), code_first=True),
    ]
    for note in summaries.bisect_notes(outcome):
        lines += ["", note]
    lines += [f"> :warning: {_cell(warning)}" for warning in outcome.warnings]
    return "\n".join(lines) + "\n"
