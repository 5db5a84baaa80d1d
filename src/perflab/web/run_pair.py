"""Two stored runs of one benchmark side by side: a ratio with its 95% interval per (case, contender)
and what differs in their environment.

Paired or unpaired, and said so:
- *paired*: both runs come from one ``perflab compare --rev/--python`` invocation (stored as one
  run per side, with the same start time and command), so their rounds were interleaved: the
  ratio is the paired one over rounds (``estimates.compare_paired``), which cancels machine drift.
  It is not the ratio of the two medians shown, and the page says so;
- *unpaired*: runs measured at different times. The ratio is that of the two medians shown
  (``estimates.ratio_of_medians``), with an interval from each run's processes resampled on their
  own; drift between the two runs is not cancelled, so a small difference may be the machine.

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
from perflab.results.model import Cell, RunResult
from perflab.results.quantities import NO_DIFFERENCE, Interval
from perflab.results.store import Store, StoredRun
from perflab.results.verdicts import TOO_FEW_ROUNDS, Shown, show
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


@dataclass
class RunComparison:
    run_a: StoredRun
    run_b: StoredRun
    paired: bool
    cells: list[CellComparison] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)

    @property
    def pairing(self) -> str:
        if self.paired:
            return (
                "paired: both runs come from one perflab compare, measured in interleaved rounds; "
                "the ratio is over rounds of time-adjacent values, not the ratio of the medians shown"
            )
        return (
            "unpaired: the runs were measured at different times; the ratio is that of the medians shown, "
            "and does not cancel machine drift between the runs"
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
    comparison = RunComparison(run_a, run_b, a_id != b_id and one_invocation(a, b))
    comparison.cells = compare_results(a, b, comparison.paired)
    comparison.differences = environment_differences(store, run_a, run_b, a, b)
    return comparison


def compare_results(a: RunResult, b: RunResult, paired: bool) -> list[CellComparison]:
    """Every (case, contender) of run ``a`` that run ``b`` has: B relative to A, with its verdict."""
    rows: list[CellComparison] = []
    tests: list[tuple[int, Interval, float]] = []  # (row index, ratio, p-value) of rows with values on both sides
    b_cells = {(c.case, c.contender): c for c in b.cells}
    for cell_a in a.cells:
        cell_b = b_cells.get((cell_a.case, cell_a.contender))
        if cell_b is None:
            continue
        row = CellComparison(cell_a.case, cell_a.contender, _median(cell_a), _median(cell_b), None, paired=paired)
        if cell_a.process_values() and cell_b.process_values():
            if paired:
                measured = estimates.compare_paired(_rounds(cell_a), _rounds(cell_b))
            else:
                measured = estimates.ratio_of_medians(cell_a.process_values(), cell_b.process_values())
            tests.append((len(rows), measured.ratio, measured.p_value))
        elif row.a is not None and row.b is not None:  # runs imported with estimates only: no interval
            ratio = Interval(row.b.value / row.a.value, -math.inf, math.inf)
            row = replace(row, ratio=ratio, shown=_shown(a, b, row, ratio, NO_DIFFERENCE, 1.0, NO_VALUES))
        rows.append(row)
    no_interval = TOO_FEW_ROUNDS if paired else TOO_FEW_PROCESSES
    for (index, ratio, _), adjusted in zip(tests, benjamini_hochberg([p for _, _, p in tests])):
        verdict = estimates.verdict(ratio.value, adjusted, ALPHA, MIN_EFFECT)
        rows[index] = replace(
            rows[index], ratio=ratio, shown=_shown(a, b, rows[index], ratio, verdict, adjusted, no_interval)
        )
    return rows


def _shown(
    a: RunResult, b: RunResult, row: CellComparison, ratio: Interval, verdict: str, p: float, no_interval: str
) -> Shown:
    """A contender that does not do what the reference does, or is fast on repeated calls only, in
    either run is struck out; the caution says in which run, as the unchecked note does."""
    invalid = a.invalid_reason(row.case, row.contender) or b.invalid_reason(row.case, row.contender)
    sides = (("A", a), ("B", b))
    cautions = [f"in {side}: {caution}" for side, run in sides if (caution := run.caution_of(row.case, row.contender))]
    unchecked = [f"in {side}: {note}" for side, run in sides if (note := run.unchecked_on(row.case, row.contender))]
    return show(ratio, verdict, p, invalid, "; ".join(cautions) or None, no_interval, "; ".join(unchecked) or None)


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


def _rounds(cell: Cell) -> dict[int, list[float]]:
    return {run.round: run.values for run in cell.runs if not run.calibration and run.values and not run.error}


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
