"""Two stored runs of one benchmark side by side: a ratio with its 95% interval per (case, contender)
and what differs in their environment.

Paired or unpaired, and said so:
- *paired, as measured*: both runs are sides of one ``perflab compare --rev/--python`` (stored as
  one run per side, with the same start time and command) and one is the side the other was
  compared with: the page states that run's own comparison (``model.MeasuredTogether``, kept with
  the side's stored run): its ratio, interval, adjusted p and verdict, over the same rounds (a
  partial last round included) and false-discovery family, never recomputed here;
- *paired, recomputed*: sides of one compare that the run did not compare with each other (two
  sides besides the reference), or stored before runs kept their comparisons: the paired ratio
  over the rounds both ran (``estimates.compare_paired``, the runner's rounds), corrected across
  these rows, and said to be recomputed. A paired ratio is not the ratio of the two medians shown,
  and the page says so;
- *unpaired*: runs measured at different times, an after-the-fact comparison. The ratio is that of
  the two medians shown (``estimates.ratio_of_medians``), with an interval from each run's
  processes resampled on their own; drift between the two runs is not cancelled, so the verdict
  is withheld when either run was measured on a busy machine or their loads differ
  (``perflab.results.warnings.load_difference``).

Every row is checked against what it shows: a ratio outside the ratios the two medians' intervals
allow (B's low over A's high to B's high over A's low) is said plainly beside it.

Verdicts use Benjamini-Hochberg across the compared cells and the same minimum effect as a run,
and read as everywhere else (``perflab.results.verdicts``): a contender that is not equivalent, or
whose speed is repeat-only, in either run is struck out, as the report and the terminal strike it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from perflab.analysis import estimates
from perflab.analysis.intervals import benjamini_hochberg
from perflab.results.model import Cell, RunResult, measured_together, shown_of
from perflab.results.quantities import FASTER, NO_DIFFERENCE, SLOWER, Interval
from perflab.results.store import Store, StoredRun
from perflab.results.verdicts import TOO_FEW_ROUNDS, Shown, show
from perflab.results.warnings import RunWarning, load_difference, run_warnings
from perflab.units import format_ratio

ALPHA = 0.05
MIN_EFFECT = 0.01
NO_VALUES = "no per-process values stored for an interval"
TOO_FEW_PROCESSES = "too few processes for an interval"


@dataclass(frozen=True)
class CellComparison:
    case: str
    contender: str
    a: Interval | None  # median time per call and its 95% interval in run A, as the page shows it
    b: Interval | None
    ratio: Interval | None  # time in B / time in A; None: not measured in both runs
    shown: Shown | None = None  # its verdict and display strings, as every output writes them
    paired: bool = False  # the ratio is over interleaved rounds, not the ratio of the medians

    @property
    def allowed(self) -> Interval | None:
        """The ratios the two medians shown allow: B / A, from B's low over A's high to B's high
        over A's low; None without both intervals."""
        if self.a is None or self.b is None:
            return None
        bounds = (self.b.low / self.a.high, self.b.high / self.a.low)
        if not all(math.isfinite(x) and x > 0 for x in bounds):
            return None
        return Interval(self.b.value / self.a.value, *bounds)

    @property
    def note(self) -> str:
        """Why the row has no ratio, or why its ratio is not what the medians shown allow; '' when
        the ratio is theirs."""
        if self.ratio is None:
            return "not measured in both runs"
        allowed = self.allowed
        if allowed is None or allowed.contains(self.ratio.value):
            return ""
        allows = format_ratio(allowed.value, allowed.low, allowed.high)
        why = (
            "the paired ratio is over time-adjacent values of interleaved rounds, which cancels drift that "
            "the medians include"
            if self.paired
            else "the stored medians are not those of the stored values"
        )
        return f"not the ratio of the medians shown, which allow {allows}: {why}"


@dataclass(frozen=True)
class Difference:
    what: str
    a: str
    b: str


# How the ratios of a comparison of two stored runs were obtained (``RunComparison.pairing``).
AS_MEASURED, RECOMPUTED, UNPAIRED = "as measured", "recomputed", "unpaired"


@dataclass
class RunComparison:
    run_a: StoredRun
    run_b: StoredRun
    source: str  # AS_MEASURED, RECOMPUTED or UNPAIRED
    cells: list[CellComparison] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    warnings: dict[str, list[RunWarning]] = field(default_factory=dict)  # "A" and "B": each run's (run_warnings)

    @property
    def paired(self) -> bool:
        return self.source != UNPAIRED

    @property
    def pairing(self) -> str:
        if self.source == AS_MEASURED:
            return (
                "paired, as measured: both runs come from one perflab compare, in interleaved rounds; these are "
                "that run's own ratios, intervals, adjusted p-values and verdicts (its rounds, its false discovery "
                "correction), over rounds of time-adjacent values, not the ratio of the medians shown"
            )
        if self.source == RECOMPUTED:
            return (
                "paired, recomputed: both runs come from one perflab compare, in interleaved rounds, but the run "
                "kept no comparison of these two sides; the ratio is recomputed over the rounds both ran, corrected "
                "across these rows, and is not the ratio of the medians shown"
            )
        return (
            "unpaired: an after-the-fact comparison of runs measured at different times; the ratio is that of the "
            "medians shown, and does not cancel machine drift between the runs, so there is no verdict when "
            "either was measured on a busy machine or their loads differ"
        )


class ComparisonError(Exception):
    """The two runs cannot be compared; the message says why."""


def compare_runs(store: Store, a_id: int, b_id: int) -> RunComparison:
    run_a, run_b = store.run(a_id), store.run(b_id)
    if run_a is None or run_b is None:
        missing = [str(i) for i, run in ((a_id, run_a), (b_id, run_b)) if run is None]
        raise ComparisonError(f"no stored run with id {' or '.join(missing)}")
    if run_a.benchmark != run_b.benchmark:
        raise ComparisonError(
            f"run {a_id} is of {run_a.benchmark!r} and run {b_id} of {run_b.benchmark!r}: "
            "only runs of one benchmark compare"
        )
    a, b = store.result(a_id), store.result(b_id)
    paired = a_id != b_id and one_invocation(a, b)
    measured = as_measured(a, b) if paired else None
    comparison = RunComparison(
        run_a, run_b, AS_MEASURED if measured is not None else RECOMPUTED if paired else UNPAIRED
    )
    comparison.cells = compare_results(a, b, paired, measured)
    comparison.differences = environment_differences(store, run_a, run_b, a, b)
    comparison.warnings = {"A": run_warnings(a), "B": run_warnings(b)}
    return comparison


def as_measured(a: RunResult, b: RunResult) -> dict[tuple[str, str], tuple[Interval, Shown]] | None:
    """B relative to A per (case, contender) as the run that measured both decided it, when one of
    the two is the side the other was compared with (``model.MeasuredTogether``); None otherwise.
    Seen from the reference's side, each ratio is the run's own turned over: interval and words
    mirrored, the same adjusted p."""
    for side, other, turned in ((b, a, False), (a, b, True)):
        kept = measured_together(side)
        if kept is None or kept[0] != other.metadata.get("compared_as"):
            continue
        rows = {}
        for entry in kept[1]:
            ratio = entry.comparison.comparison.ratio
            shown = entry.shown(side.settings)
            if turned:
                ratio = _turned(ratio)
                verdict = {FASTER: SLOWER, SLOWER: FASTER}.get(entry.comparison.verdict, entry.comparison.verdict)
                shown = shown_of(
                    replace(
                        entry.comparison, verdict=verdict, comparison=replace(entry.comparison.comparison, ratio=ratio)
                    ),
                    entry.invalid,
                    entry.unchecked,
                    side.settings,
                )
            rows[entry.comparison.case, entry.comparison.contender] = (ratio, shown)
        return rows
    return None


def _turned(ratio: Interval) -> Interval:
    """A ratio seen from the other side; no interval stays none (1/inf is no bound)."""
    if not (math.isfinite(ratio.low) and math.isfinite(ratio.high) and ratio.low > 0):
        return Interval(1 / ratio.value, -math.inf, math.inf)
    return Interval(1 / ratio.value, 1 / ratio.high, 1 / ratio.low)


def compare_results(
    a: RunResult,
    b: RunResult,
    paired: bool,
    measured: dict[tuple[str, str], tuple[Interval, Shown]] | None = None,
) -> list[CellComparison]:
    """Every (case, contender) of run ``a`` that run ``b`` has: B relative to A, with its verdict;
    ``measured``: the comparisons of the run that measured both (``as_measured``), stated as they are."""
    rows: list[CellComparison] = []
    tests: list[tuple[int, Interval, float]] = []  # (row index, ratio, p-value) of rows with values on both sides
    b_cells = {(c.case, c.contender): c for c in b.cells}
    withheld = None if paired else load_difference(a, b)
    for cell_a in a.cells:
        cell_b = b_cells.get((cell_a.case, cell_a.contender))
        if cell_b is None:
            continue
        row = CellComparison(cell_a.case, cell_a.contender, _median(cell_a), _median(cell_b), None, paired=paired)
        if measured is not None:
            found = measured.get((row.case, row.contender))
            if found is not None:
                row = replace(row, ratio=found[0], shown=found[1])
        elif cell_a.process_values() and cell_b.process_values():
            if paired:  # the rounds the runner compares: every measured round, a partial last one included
                compared = estimates.compare_paired(cell_a.round_values(), cell_b.round_values())
            else:
                compared = estimates.ratio_of_medians(cell_a.process_values(), cell_b.process_values())
            tests.append((len(rows), compared.ratio, compared.p_value))
        elif row.a is not None and row.b is not None:  # runs imported with estimates only: no interval
            ratio = Interval(row.b.value / row.a.value, -math.inf, math.inf)
            row = replace(row, ratio=ratio, shown=_shown(a, b, row, ratio, NO_DIFFERENCE, 1.0, NO_VALUES, withheld))
        rows.append(row)
    no_interval = TOO_FEW_ROUNDS if paired else TOO_FEW_PROCESSES
    for (index, ratio, _), adjusted in zip(tests, benjamini_hochberg([p for _, _, p in tests])):
        verdict = estimates.verdict(ratio.value, adjusted, ALPHA, MIN_EFFECT)
        rows[index] = replace(
            rows[index], ratio=ratio, shown=_shown(a, b, rows[index], ratio, verdict, adjusted, no_interval, withheld)
        )
    return rows


def _shown(
    a: RunResult,
    b: RunResult,
    row: CellComparison,
    ratio: Interval,
    verdict: str,
    p: float,
    no_interval: str,
    withheld: str | None,
) -> Shown:
    """A contender that does not do what the reference does, or is fast on repeated calls only, in
    either run is struck out; the caution says in which run, as the unchecked note does."""
    invalid = a.invalid_reason(row.case, row.contender) or b.invalid_reason(row.case, row.contender)
    sides = (("A", a), ("B", b))
    cautions = [f"in {side}: {caution}" for side, run in sides if (caution := run.caution_of(row.case, row.contender))]
    unchecked = [f"in {side}: {note}" for side, run in sides if (note := run.unchecked_on(row.case, row.contender))]
    return show(
        ratio,
        verdict,
        p,
        invalid,
        "; ".join(cautions) or None,
        no_interval,
        "; ".join(unchecked) or None,
        withheld,
        (ALPHA, MIN_EFFECT),
    )


def one_invocation(a: RunResult, b: RunResult) -> bool:
    """Both runs are sides of one ``perflab compare`` (``RunResult.per_side``)."""
    return (
        bool(a.metadata.get("compared_as"))
        and bool(b.metadata.get("compared_as"))
        and a.metadata.get("started_at") == b.metadata.get("started_at")
        and a.metadata.get("command") == b.metadata.get("command")
    )


def _median(cell: Cell | None) -> Interval | None:
    return cell.estimates.median if cell is not None and cell.estimates is not None else None


def environment_differences(
    store: Store, run_a: StoredRun, run_b: StoredRun, a: RunResult, b: RunResult
) -> list[Difference]:
    """Commit, interpreter, machine and package versions where the two runs differ."""

    def described(result: RunResult, run: StoredRun) -> dict[str, str]:
        python, machine, git = (result.metadata.get(k) or {} for k in ("python", "machine", "git"))
        return {
            "commit": f"{run.label} {git.get('subject') or ''}".strip(),
            "branch": str(git.get("branch") or ""),
            "interpreter": f"{python.get('implementation') or ''} {python.get('version') or ''} "
            f"{python.get('build') or ''}".strip(),
            "machine": f"{machine.get('cpu_model') or '?'}, {machine.get('cpu_count') or '?'} CPUs, "
            f"{machine.get('os') or ''} {machine.get('kernel') or ''}".strip(),
        }

    left, right = described(a, run_a), described(b, run_b)
    found = [Difference(what, left[what], right[what]) for what in left if left[what] != right[what]]
    packages_a, packages_b = store.packages(run_a.id), store.packages(run_b.id)
    for name in sorted(set(packages_a) | set(packages_b)):
        old, new = packages_a.get(name), packages_b.get(name)
        if old != new:
            found.append(Difference(f"package {name}", old or "not imported", new or "not imported"))
    return found
