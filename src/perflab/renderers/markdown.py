"""The CI gate's verdict as Markdown, for a pull-request comment or a GitHub job summary."""

from __future__ import annotations

import math

from perflab.gate import REGRESSION, CheckResult
from perflab.units import format_time


def render_check(check: CheckResult, benchmark: str, baseline: str, current: str) -> str:
    """``baseline``/``current``: one-line descriptions of the two runs (commit, source)."""
    regressions = check.regressions
    if regressions:
        headline = (f"### :x: perflab: {len(regressions)} regression(s) larger than "
                    f"{check.threshold:.0%} in `{_cell(benchmark)}`")
    else:
        headline = f"### :white_check_mark: perflab: no regression larger than {check.threshold:.0%} in `{_cell(benchmark)}`"
    lines = [headline, "", f"Baseline: {_cell(baseline)}  ", f"Current: {_cell(current)}", "",
             "| case | contender | baseline | current | change [95% CI] | verdict |",
             "|---|---|---:|---:|---:|---|"]
    for cell in check.cells:
        ratio = cell.comparison.ratio
        if math.isfinite(ratio.low) and math.isfinite(ratio.high):
            change = f"{_signed(ratio.value)} [{_signed(ratio.low)}, {_signed(ratio.high)}]"
        else:
            change = f"{_signed(ratio.value)} [no interval]" if math.isfinite(ratio.value) else "?"
        verdict = f"**{REGRESSION}**" if cell.verdict == REGRESSION else cell.verdict
        lines.append(f"| {_cell(cell.case)} | {_cell(cell.contender)} | {format_time(cell.baseline)} | "
                     f"{format_time(cell.current)} | {change} | {verdict} |")
    lines.append("")
    if check.not_compared:
        lines.append(f"Not compared (measured on one side only): {_cell(', '.join(check.not_compared))}")
    for note in check.notes:
        lines.append(f"> :warning: {_cell(note)}")
    lines.append(f"<sub>Unpaired comparison: Welch's t on per-process log medians; a regression is a "
                 f"slowdown larger than {check.threshold:.0%} at a false discovery rate of "
                 f"{check.alpha:.0%} (Benjamini-Hochberg across cells).</sub>")
    return "\n".join(lines) + "\n"


def _signed(ratio: float) -> str:
    return f"{ratio - 1:+.1%}"


def _cell(text: str) -> str:
    """Text from user code or git, safe inside a Markdown table."""
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")
