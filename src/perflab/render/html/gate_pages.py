"""``perflab check --html`` and ``perflab bisect --html``: the CI gate's verdict and a bisection as
one offline page each, saying what their ``--markdown`` says (the strings of render/gate_summaries.py),
laid out by templates/check.html and bisect.html."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perflab.analysis.gate import CheckResult
from perflab.render import gate_summaries as summaries
from perflab.render.html import templating
from perflab.units import format_ratio

if TYPE_CHECKING:
    from perflab.measure.bisect import Outcome


def render_check(check: CheckResult, benchmark: str, baseline: str, current: str) -> str:
    """``baseline``/``current``: plain one-line descriptions of the two runs (commit, source)."""
    return templating.render(
        "check.html",
        title=f"perflab check: {benchmark}",
        css="report.css",
        script=None,
        benchmark=benchmark,
        headline=summaries.headline(check),
        baseline=baseline,
        current=current,
        time_columns=summaries.TIME_COLUMNS,
        time_rows=summaries.time_rows(check, check.cells),
        build_spread=summaries.build_spread(check),
        unqualified=summaries.unqualified(check),
        counts_title=summaries.COUNTS_TITLE,
        count_columns=summaries.COUNT_COLUMNS,
        count_rows=summaries.count_rows(check),
        memory_title=summaries.MEMORY_TITLE,
        memory_columns=summaries.MEMORY_COLUMNS,
        memory_rows=summaries.memory_rows(check),
        not_compared=check.not_compared,
        selection=check.selection,
        skipped=summaries.skipped_cells(check),
        notes=check.notes + check.warnings,
        method=summaries.method(check),
    )


def render_bisect(outcome: Outcome) -> str:
    value, low, high = outcome.confirmed_ratio
    return templating.render(
        "bisect.html",
        title=f"perflab bisect: {outcome.case}",
        css="report.css",
        script=None,
        first_bad=outcome.first_bad[:12],
        subject=outcome.subject,
        case=outcome.case,
        ratio=format_ratio(value, low, high),
        searched=summaries.searched(outcome),
        columns=summaries.BISECT_COLUMNS,
        rows=summaries.bisect_rows(outcome),
        notes=summaries.bisect_notes(outcome),
        confirmed=outcome.certain,
        warnings=outcome.warnings,
    )
