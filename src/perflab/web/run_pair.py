"""Two stored runs of one benchmark side by side: a ratio with its 95% interval per (case, contender)
and what differs in their environment.

Paired or unpaired, and said so:
- *paired*: both runs come from one ``perflab compare --rev/--python`` invocation (stored as one
  run per side, with the same start time and command), so their rounds were interleaved: the
  ratio is the paired one over rounds (``estimates.compare_paired``), which cancels machine drift;
- *unpaired*: runs measured at different times. The ratio comes from the per-process medians of
  each run (Yuen-Welch, as ``perflab check`` against a results file does); drift between the two
  runs is not cancelled, so a small difference may be the machine.

Verdicts use Benjamini-Hochberg across the compared cells and the same minimum effect as a run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from perflab.analysis import estimates
from perflab.analysis.gate import compare_unpaired
from perflab.analysis.intervals import benjamini_hochberg
from perflab.results.model import Cell, RunResult
from perflab.results.quantities import Interval
from perflab.results.store import Store, StoredRun

ALPHA = 0.05
MIN_EFFECT = 0.01


@dataclass(frozen=True)
class CellComparison:
    case: str
    contender: str
    a: estimates.Interval | None  # median time per call and its 95% interval in run A
    b: estimates.Interval | None
    ratio: estimates.Interval | None  # time in B / time in A
    verdict: str  # faster / slower / no detectable difference (B relative to A), or why none


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
                "the ratio is over rounds"
            )
        return (
            "unpaired: the runs were measured at different times; ratios come from each run's "
            "per-process medians and do not cancel machine drift between them"
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
    comparison = RunComparison(run_a, run_b, paired)
    measured = []
    b_cells = {(c.case, c.contender): c for c in b.cells}
    for cell_a in a.cells:
        cell_b = b_cells.get((cell_a.case, cell_a.contender))
        if cell_b is None:
            continue
        if not cell_a.process_values() or not cell_b.process_values():
            a_median, b_median = _median(cell_a), _median(cell_b)
            if a_median is None or b_median is None:
                comparison.cells.append(
                    CellComparison(cell_a.case, cell_a.contender, a_median, b_median, None, "not measured in both runs")
                )
            else:  # e.g. runs imported with estimates only: the ratio of medians, without an interval
                comparison.cells.append(
                    CellComparison(
                        cell_a.case,
                        cell_a.contender,
                        a_median,
                        b_median,
                        Interval(b_median.value / a_median.value, -math.inf, math.inf),
                        "undecided: no per-process values stored for an interval",
                    )
                )
            continue
        ratio, p_value = _paired(cell_a, cell_b) if paired else _unpaired(cell_a, cell_b)
        measured.append((len(comparison.cells), ratio, p_value))
        comparison.cells.append(
            CellComparison(cell_a.case, cell_a.contender, _median(cell_a), _median(cell_b), ratio, "")
        )
    adjusted = benjamini_hochberg([p for _, _, p in measured])
    for (index, ratio, _), p in zip(measured, adjusted):
        decided = math.isfinite(ratio.low) and math.isfinite(ratio.high)
        verdict = estimates.verdict(ratio.value, p, ALPHA, MIN_EFFECT) if decided else "undecided: too few processes"
        old = comparison.cells[index]
        comparison.cells[index] = CellComparison(old.case, old.contender, old.a, old.b, ratio, verdict)
    comparison.differences = environment_differences(store, run_a, run_b, a, b)
    return comparison


def one_invocation(a: RunResult, b: RunResult) -> bool:
    """Both runs are sides of one ``perflab compare`` (``RunResult.per_side``)."""
    return (
        bool(a.metadata.get("compared_as"))
        and bool(b.metadata.get("compared_as"))
        and a.metadata.get("started_at") == b.metadata.get("started_at")
        and a.metadata.get("command") == b.metadata.get("command")
    )


def _median(cell: Cell | None) -> estimates.Interval | None:
    return cell.estimates.median if cell is not None and cell.estimates is not None else None


def _rounds(cell: Cell) -> dict[int, list[float]]:
    return {run.round: run.values for run in cell.runs if not run.calibration and run.values and not run.error}


def _paired(a: Cell, b: Cell) -> tuple[estimates.Interval, float]:
    paired = estimates.compare_paired(_rounds(a), _rounds(b))
    return paired.ratio, paired.p_value


def _unpaired(a: Cell, b: Cell) -> tuple[estimates.Interval, float]:
    unpaired = compare_unpaired(a.process_values(), b.process_values(), threshold=0.0)
    return unpaired.ratio, unpaired.p_change


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
