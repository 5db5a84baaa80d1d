"""What ``perflab check`` and ``perflab bisect`` say, as plain text: Markdown (render/markdown.py)
and HTML (render/html/gate_pages.py) lay out the same strings, each escaping them its own way, so
that the two files of one check or bisection cannot say different things."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from perflab.analysis.gate import REGRESSION, UNDECIDED, CellCheck, CheckResult, regression_threshold
from perflab.results import verdicts
from perflab.results.quantities import NO_DIFFERENCE, Interval
from perflab.units import MEMORY_WORDS, counted, format_bytes, format_ratio, format_ratio_estimate, format_time

if TYPE_CHECKING:
    from perflab.measure.bisect import Outcome


@dataclass(frozen=True)
class Row:
    """One line of a table: its cells as text, then the verdict as parts of text, each said
    strongly or not (a regression, a commit that is not equivalent)."""

    cells: tuple[str, ...]
    verdict: tuple[tuple[str, bool], ...]


TIME_COLUMNS = ("case", "contender", "baseline median", "current median", "current vs baseline [95% CI]", "verdict")
COUNT_COLUMNS = ("case", "contender", "baseline", "current", "change [range]", "verdict")
BISECT_COLUMNS = ("commit", "subject", "vs good [95% CI]", "bad vs good in the same run", "verdict")
COUNTS_TITLE = "Instructions per call (valgrind callgrind; range over the counted processes):"
MEMORY_COLUMNS = ("case", "contender", "figure", "baseline", "current", "change [range]", "verdict")
MEMORY_TITLE = (
    "Memory (memray, Python and native allocations; range over the processes): bytes allocated per call, "
    "and bytes live at the calls' peak:"
)


def regressions(check: CheckResult) -> int:
    return len(check.regressions) + len(check.instruction_regressions) + len(check.memory_regressions)


# What a check's headline reports, for the surface to mark (an icon, a colour).
FAILED, UNSETTLED, PASSED = "failed", "unsettled", "passed"


def headline(check: CheckResult) -> tuple[str, str, str]:
    """The check's outcome in one line, around the benchmark's name ('{before} in NAME{after}'), and
    which of FAILED, UNSETTLED, PASSED it is. It never says more than the table: with a cell
    undecided (one round before the budget ran out) or measured on one side only, no regression
    was shown, not none found."""
    found = regressions(check)
    if found:
        return f"{found} regression(s), more than {thresholds(check)},", "", FAILED
    undecided = sum(cell.verdict == UNDECIDED for cell in check.cells)
    if undecided or check.not_compared:
        total = counted(len(check.cells) + len(check.not_compared), "cell")
        parts = [f"{undecided} undecided"] if undecided else []
        parts += [f"{len(check.not_compared)} not compared"] if check.not_compared else []
        return f"no regression shown (more than {thresholds(check)})", f": of {total}, {', '.join(parts)}", UNSETTLED
    return f"no regression (more than {thresholds(check)})", "", PASSED


def thresholds(check: CheckResult) -> str:
    """What fails the check: '1.05x slower or 0.50% more instructions'."""
    return (
        f"{threshold(regression_threshold(check.threshold, check.build_spread))} slower"
        + (f" or {check.instructions_threshold:.2%} more instructions" if check.instructions else "")
        + (f" or {check.memory_threshold:.2%} more memory" if check.memory else "")
    )


def build_spread(check: CheckResult) -> str | None:
    """Across built revisions with --build-spread: the spread, and how it widens the threshold."""
    spread = check.build_spread
    if spread is None:
        return None
    widened = regression_threshold(check.threshold, spread)
    if widened == check.threshold:
        return f"{spread.shown}; the threshold stays {threshold(check.threshold)}"
    return (
        f"{spread.shown}; a regression must exceed both: (1 + threshold) × (1 + spread) = "
        f"{threshold(check.threshold)} × {1 + spread.spread:.4g} = {threshold(widened)}"
    )


def threshold(threshold: float) -> str:
    """The slowdown factor a regression exceeds: 0.05 -> '1.05x', 0.005 -> '1.005x'."""
    return f"{1 + threshold:.4g}x"


def time_rows(check: CheckResult, cells: list[CellCheck]) -> list[Row]:
    rows = []
    for cell in cells:
        ratio = cell.comparison.ratio
        detects = check.detects(cell)
        times = (
            format_time(cell.baseline),
            format_time(cell.current),
            format_ratio(ratio.value, ratio.low, ratio.high),
        )
        verdict = ((cell.verdict, cell.verdict == REGRESSION),) + tuple(
            (f"; {note}", False) for note in (detects, short_of_a_verdict(check, cell), check.estimators(cell)) if note
        )
        rows.append(Row((cell.case, cell.contender, *times), verdict))
    return rows


def short_of_a_verdict(check: CheckResult, cell: CellCheck) -> str | None:
    """Beside a "no detectable difference" whose 95% interval shown excludes 1x, why it is no
    verdict (perflab.results.verdicts.short_of_a_verdict)."""
    return verdicts.short_of_a_verdict(cell.comparison.ratio, cell.verdict, check.alpha, check.min_effect)


def skipped_cells(check: CheckResult) -> list[str]:
    """``check --affected``: the cells not run, one line per reason ('Skipped, reaches none of the
    3 changed functions: NESTED/stdlib, HUGE/stdlib')."""
    cells: dict[str, list[str]] = {}
    for cell in check.skipped:
        cells.setdefault(cell.reason, []).append(f"{cell.case}/{cell.contender}")
    return [f"Skipped, {reason}: {', '.join(names)}" for reason, names in cells.items()]


def unqualified(check: CheckResult) -> bool:
    """Whether some "no detectable difference" of a paired check cannot say what this runner detects."""
    return check.paired and any(cell.verdict == NO_DIFFERENCE and check.detects(cell) is None for cell in check.cells)


def count_rows(check: CheckResult) -> list[Row]:
    return [
        Row(
            (counts.case, counts.contender, f"{counts.baseline.value:,.1f}", f"{counts.current.value:,.1f}")
            + (_change(counts.change),),
            ((counts.verdict, counts.verdict == REGRESSION),),
        )
        for counts in check.instructions
    ]


def memory_rows(check: CheckResult) -> list[Row]:
    return [
        Row(
            (figures.case, figures.contender, figures.figure, format_bytes(figures.baseline.value))
            + (format_bytes(figures.current.value), _memory_change(figures.change)),
            ((figures.verdict, figures.verdict == REGRESSION),),
        )
        for figures in check.memory
    ]


def _memory_change(change: Interval) -> str:
    """A ratio of bytes as run and compare write it: '2.00x more memory [1.99x, 2.01x]'."""
    return format_ratio(change.value, change.low, change.high, MEMORY_WORDS)


def _change(change: Interval) -> str:
    return f"{_signed(change.value)} [{_signed(change.low)}, {_signed(change.high)}]"


def _signed(ratio: float) -> str:
    return f"{ratio - 1:+.3%}"


def method(check: CheckResult) -> str:
    """The footnote: how the check compared, what a regression is, what the medians shown are."""
    anytime = any(cell.comparison.anytime for cell in check.cells)
    interval = (
        "anytime-valid interval over rounds of per-round ratios (a confidence sequence: it holds at whatever round "
        "the check stopped)"
        if anytime
        else "t interval over rounds of per-round ratios"
    )
    how = (
        f"Paired comparison: both revisions measured in this job, interleaved, {interval}"
        if check.paired
        else "Unpaired comparison: Yuen-Welch t on per-process log medians (20% trimmed)"
    )
    return (
        f"{how}; a regression is the current code more than {threshold(check.threshold)} slower "
        f"than the baseline (time ratio current/baseline, 95% CI) at a false "
        f"discovery rate of {check.alpha:.0%} (Benjamini-Hochberg across cells)"
        + (
            f", or more instructions than {check.instructions_threshold:.2%} beyond the counts' spread"
            if check.instructions
            else ""
        )
        + (
            f", or more bytes allocated per call or at the peak than {check.memory_threshold:.2%} beyond the "
            "processes' spread"
            if check.memory
            else ""
        )
        + ". Baseline and current are medians over all "
        "values; the change is estimated from "
        + ("the per-round ratios" if check.paired else "the per-process medians")
        + ", not from those two medians, so it can differ from their ratio by a few percent."
    )


def bisect_rows(outcome: Outcome) -> list[Row]:
    rows = []
    for step in outcome.steps:
        said = " ".join(
            part
            for part in (
                "check:" if step.check else "",
                "bad" if step.bad else "good",
                "" if step.certain else "(uncertain)",
            )
            if part
        )
        verdict = ((said, False),) + (((" ", False), (step.equivalence.upper(), True)) if step.equivalence else ())
        ratios = (format_ratio(step.ratio, step.low, step.high), format_ratio_estimate(step.regression))
        rows.append(Row((step.commit[:12], step.subject, *ratios), verdict))
    return rows


def skipped_commits(outcome: Outcome) -> str | None:
    """The commits bisect skipped as they do not build, and whether the first bad one may be one of them."""
    if not outcome.skipped:
        return None
    said = f"Skipped, as they do not build: {', '.join(commit[:12] for commit in outcome.skipped)}"
    if outcome.undecided:
        which = "any of the ones" if len(outcome.undecided) > 1 else "the one"
        said += f"; the first bad commit may also be {which} just before it: "
        said += ", ".join(commit[:12] for commit in outcome.undecided)
    return said + "."


def also_regressed(outcome: Outcome) -> str | None:
    """The other cases that regressed between good and bad, which the search did not follow."""
    if not outcome.also_regressed:
        return None
    cases = ", ".join(outcome.also_regressed)
    return f"Also slower at bad than at good, not followed: {cases} (--case NAME bisects one of them)."


def bisect_notes(outcome: Outcome) -> list[str]:
    """What --markdown and --html say under a bisection's table: skipped commits, whether the
    answer is confirmed and by which measurements, and the cases not followed."""
    notes = [skipped_commits(outcome) or "", outcome.confirmation, also_regressed(outcome) or ""]
    return [note for note in notes if note]


def searched(outcome: Outcome) -> str:
    return f"{counted(outcome.commits, 'commit')} searched in {counted(outcome.measurements, 'measurement')}"
