"""The CI gate: is the code under test slower than a baseline by more than a threshold?

Two kinds of baseline, two comparisons:

- A git revision (``perflab check --against main``): the revision is checked out in a worktree and
  measured *now*, interleaved with the working tree in one run of the runner (one live worker per
  side, values alternating, paired per round), exactly as ``perflab compare --rev`` does. The
  ratio is the foundation's paired one (``estimates.compare_paired``): a machine that is slower during
  the job slows both sides alike, so this is the comparison to use on shared CI runners.
- A results file measured in another run (another job, maybe another day): there are no
  time-adjacent pairs, so the comparison is unpaired. The unit of independence is still the
  worker process, so each process is reduced to the log of its median and the two groups of
  process log-medians are compared with Yuen's trimmed-means version of Welch's t (20% trimmed
  from each end, winsorized variances, Welch-Satterthwaite degrees of freedom): on a shared
  machine some processes of a run are slowed by other tenants, and plain means let two or three
  of them fake an 18% regression (seen on this project's VM). The ratio current/baseline is
  exp(difference of trimmed means) with a 95% t interval.

Either way, a regression is reported only when the data support that the slowdown is *larger
than the threshold*: the one-sided test of H0 "ratio <= 1 + threshold" is rejected at ``alpha``
after Benjamini-Hochberg correction across all compared cells. A machine that is a few percent
slower during one of two unpaired runs (which no unpaired method can tell from a code change)
therefore does not fail the build unless it exceeds the threshold. Across built revisions
measured with ``--build-spread``, the threshold is widened by the build-to-build spread s (the A/A
of two builds of the baseline revision): H0 becomes "ratio <= (1 + threshold)(1 + s)", the two
added on the log scale, so a slowdown a rebuild alone could show is not a regression. A whole run slowed by a busy
machine is beyond any statistic; ``perflab check`` re-measures before failing (``--confirm``).
The false-positive rate is checked by simulation in tests/simulation/test_gate.py and on replayed real runs
in benchmarks/changepoint_replay.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from perflab.analysis import estimates, intervals
from perflab.analysis.counts import (
    ALLOCATED,
    DISAGREEMENT_FACTOR,
    PEAK,
    Disagreement,
    InstructionsEstimate,
    ProcessSpread,
)
from perflab.analysis.detectable import Projection, Qualification
from perflab.results.fingerprints import machine_fingerprint, python_fingerprint
from perflab.results.model import INVALID, NOT_EQUIVALENT, Cell, RunResult, json_numbers
from perflab.results.quantities import NO_DIFFERENCE, SLOWER, BuildSpread, Comparison, Interval
from perflab.results.verdicts import SMALLEST_MEMORY_DIFFERENCE
from perflab.units import format_ratio, format_ratio_estimate

REGRESSION = "REGRESSION"
SLOWER_WITHIN_THRESHOLD = "slower, within threshold"
UNDECIDED = "undecided (fewer than 2 processes)"
NOT_REPRODUCED = "slower once, not when re-measured"
MORE_INSTRUCTIONS = "more instructions, within threshold"
FEWER_INSTRUCTIONS = "fewer instructions"
SAME_INSTRUCTIONS = "no change beyond the spread"
MORE_MEMORY = "more memory, within threshold"
LESS_MEMORY = "less memory"
SAME_MEMORY = SAME_INSTRUCTIONS
# Share of processes trimmed from each end: a few processes slowed by a busy machine must not
# move the comparison (Yuen's test; with fewer than 5 processes nothing is trimmed).
TRIM = 0.2


@dataclass(frozen=True)
class GateComparison:
    ratio: Interval  # current / baseline
    p_change: float  # two-sided, H0: ratio = 1
    p_regression: float  # one-sided, H0: ratio <= 1 + threshold
    processes: tuple[int, int]  # measured processes (baseline, current); paired: rounds on each side
    anytime: bool = False  # the interval and p-values are anytime-valid (a paired check that stopped on them)


@dataclass(frozen=True)
class CellCheck:
    case: str
    contender: str
    baseline: float  # median seconds per call
    current: float
    comparison: GateComparison
    verdict: str


@dataclass(frozen=True)
class InstructionCheck:
    """Instructions per call (callgrind) of one cell on both sides. Counts are deterministic up to
    the spread between their processes, so the verdict needs no test: the change is the range of
    ratios that the two sides' process counts allow."""

    case: str
    contender: str
    baseline: InstructionsEstimate
    current: InstructionsEstimate
    verdict: str

    @property
    def change(self) -> Interval:
        """current / baseline: the median ratio, and the smallest and largest the spreads allow."""
        return self.current.ratio_to(self.baseline)


@dataclass(frozen=True)
class MemoryCheck:
    """One memory figure (bytes allocated per call, or the peak) of one cell on both sides, from
    memray in separate processes. Like instruction counts it repeats almost exactly, so the change
    is the range of ratios the two sides' processes allow."""

    case: str
    contender: str
    figure: str  # ALLOCATED or PEAK
    baseline: ProcessSpread
    current: ProcessSpread
    verdict: str

    @property
    def change(self) -> Interval:
        return self.current.ratio_to(self.baseline)


@dataclass(frozen=True)
class SkippedCell:
    """A cell ``check --affected`` did not run, and why (perflab.measure.affected)."""

    case: str
    contender: str
    reason: str


@dataclass
class CheckResult:
    threshold: float
    alpha: float
    paired: bool = False  # both measured in one interleaved run (a revision), not a results file
    min_effect: float = 0.01  # a smaller change is "no detectable difference" however certain
    cells: list[CellCheck] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)  # cells measured on one side only
    notes: list[str] = field(default_factory=list)  # e.g. different machines
    instructions: list[InstructionCheck] = field(default_factory=list)  # with --metric instructions
    instructions_threshold: float = 0.0
    memory: list[MemoryCheck] = field(default_factory=list)  # with --metric memory
    memory_threshold: float = 0.0
    # What this machine can detect (perflab qualify), said beside every "no detectable difference"
    # of a paired check; None: not qualified, or an unpaired check (the floor is the paired gate's).
    qualification: Qualification | None = None
    # With --affected: what the change touched and what it left to run; the cells not run.
    selection: str | None = None
    skipped: list[SkippedCell] = field(default_factory=list)
    # Across built revisions with --build-spread: the widest spread of the runs, each run's
    # threshold widened by its own (regression_threshold).
    build_spread: BuildSpread | None = None
    # Of the runs measured (perflab.results.warnings.run_warnings): a busy machine, a precision not
    # reached, what the timing checks found; every output of the check says them.
    warnings: list[str] = field(default_factory=list)

    def estimators(self, cell: CellCheck) -> str | None:
        """Where the ratio beside the two medians shown is not theirs (it reads as another factor or
        direction): which ratio the verdict's is, and why they differ; None where it is theirs."""
        medians = format_ratio_estimate(cell.current / cell.baseline)
        if medians == format_ratio_estimate(cell.comparison.ratio.value):
            return None
        how = (
            "paired over the time-adjacent values of interleaved rounds, which cancels drift the medians include"
            if self.paired
            else "of the processes' trimmed log medians (Yuen), which a few slowed processes move less than a median"
        )
        return f"the ratio of the medians shown is {medians}; the verdict's ratio is {how}"

    def detects(self, cell: CellCheck) -> str | None:
        """Beside a "no detectable difference" of a paired check, what this runner detects on the
        cell and the budget that would detect less (perflab.analysis.detectable); else None."""
        if cell.verdict != NO_DIFFERENCE or not self.paired or self.qualification is None:
            return None
        return self.qualification.detects(cell.case, cell.contender, self.threshold)

    def projection(self, cell: CellCheck) -> Projection | None:
        """The budget ``detects`` says, as numbers."""
        floor = self.qualification.floor(cell.case, cell.contender) if self.qualification else None
        if self.qualification is None or floor is None or self.detects(cell) is None:
            return None
        return self.qualification.projection(floor, self.threshold)

    @property
    def regressions(self) -> list[CellCheck]:
        return [cell for cell in self.cells if cell.verdict == REGRESSION]

    @property
    def instruction_regressions(self) -> list[InstructionCheck]:
        return [cell for cell in self.instructions if cell.verdict == REGRESSION]

    @property
    def memory_regressions(self) -> list[MemoryCheck]:
        return [cell for cell in self.memory if cell.verdict == REGRESSION]

    def to_json(self, benchmark: str, baseline: str, current: str) -> dict[str, Any]:
        """``perflab check --json`` (schema perflab.check/1): every cell's time ratio current/baseline
        with its interval and, as every output writes it, ``shown``; the verdicts; and whether the
        gate passed (no regression)."""
        data = asdict(self)
        if self.build_spread is not None:
            data["build_spread"] = {**self.build_spread.to_json(), "shown": self.build_spread.shown}
        for entry, cell in zip(data["cells"], self.cells):
            ratio = cell.comparison.ratio
            entry["shown"] = format_ratio(ratio.value, ratio.low, ratio.high)
            projection = self.projection(cell)
            entry["detects"], entry["projected"] = self.detects(cell), asdict(projection) if projection else None
            entry["estimators"] = self.estimators(cell)
        return json_numbers(
            {
                "schema": "perflab.check/1",
                "benchmark": benchmark,
                "baseline": baseline,
                "current": current,
                "passed": not (self.regressions or self.instruction_regressions or self.memory_regressions),
                **data,
            }
        )


def process_log_medians(processes: Sequence[Sequence[float]]) -> np.ndarray:
    return np.array([math.log(float(np.median(values))) for values in processes if len(values)])


def compare_unpaired(
    baseline: Sequence[Sequence[float]], current: Sequence[Sequence[float]], threshold: float
) -> GateComparison:
    """Yuen-Welch t on per-process log medians: ratio current/baseline with a 95% interval."""
    before, after = process_log_medians(baseline), process_log_medians(current)
    counts = (len(before), len(after))
    if min(counts) < 2:
        centre = math.exp(np.median(after) - np.median(before)) if min(counts) else math.nan
        return GateComparison(Interval(centre, -math.inf, math.inf), 1.0, 1.0, counts)
    test = intervals.welch(before, after, trim=TRIM)
    difference = test.interval
    ratio = Interval(math.exp(difference.value), math.exp(difference.low), math.exp(difference.high))
    return GateComparison(ratio, test.p_value, test.p_above(math.log1p(threshold)), counts)


def check(
    baseline: RunResult, current: RunResult, threshold: float = 0.05, alpha: float = 0.05, min_effect: float = 0.01
) -> CheckResult:
    """Unpaired: every (case, contender) measured in both runs; FDR-corrected verdicts."""
    result = CheckResult(threshold, alpha, min_effect=min_effect, notes=comparability_notes(baseline, current))
    before = {(c.case, c.contender): c for c in baseline.cells if c.process_values()}
    after = {(c.case, c.contender): c for c in current.cells if c.process_values()}
    keys = [key for key in after if key in before]
    result.not_compared = [
        f"{case}/{contender}" for case, contender in [*before, *after] if (case, contender) not in keys
    ]
    _decide(
        result,
        [
            (
                *key,
                before[key],
                after[key],
                compare_unpaired(before[key].process_values(), after[key].process_values(), threshold),
            )
            for key in keys
        ],
        min_effect,
    )
    return result


def check_paired(
    runs: Sequence[RunResult], threshold: float = 0.05, alpha: float = 0.05, min_effect: float = 0.01
) -> CheckResult:
    """Paired: each run measured the baseline revision (its reference side) and the code under test
    (its other side) interleaved, for one contender; FDR-corrected verdicts across all of them."""
    result = CheckResult(threshold, alpha, paired=True, min_effect=min_effect)
    spreads = [run.build_spread for run in runs if run.build_spread is not None]
    result.build_spread = max(spreads, key=lambda spread: spread.spread) if spreads else None
    rows = []
    for run in runs:
        widened = regression_threshold(threshold, run.build_spread)
        compared = {(c.case, c.contender): c for c in run.comparisons}
        for cell in run.cells:
            if cell.contender == run.reference:
                continue
            contender = run.sides[cell.contender]["contender"]
            found = compared.get((cell.case, cell.contender))
            if found is None or found.comparison.pairs == 0:
                result.not_compared.append(f"{cell.case}/{contender}")
                continue
            rows.append(
                (
                    cell.case,
                    contender,
                    run.cell(cell.case, run.reference),
                    cell,
                    paired_comparison(found.comparison, widened),
                )
            )
        result.notes += [
            f"{e.case}/{run.sides[e.contender]['contender']}: "
            f"{'output differs from' if e.status == NOT_EQUIVALENT else e.status + ', unlike'} "
            f"the baseline revision: {e.difference}"
            for e in run.equivalence
            if e.status in INVALID
        ]
    _decide(result, rows, min_effect)
    return result


def regression_threshold(threshold: float, build_spread: BuildSpread | None) -> float:
    """The slowdown a regression must exceed: ``threshold``, and beyond it the build-to-build
    spread when one was measured: (1 + threshold)(1 + spread) - 1 (1.05x and ±1% -> 1.0605x). An
    unknown spread (its A/A had no interval) widens nothing; the outputs say it is unknown."""
    if build_spread is None or not math.isfinite(build_spread.spread):
        return threshold
    return (1 + threshold) * (1 + build_spread.spread) - 1


def paired_comparison(comparison: Comparison, threshold: float) -> GateComparison:
    """The foundation's paired ratio (over rounds of per-round log ratios), with the one-sided
    p-value of H0 "ratio <= 1 + threshold" of the same kind as its interval (``estimates.p_above``)."""
    n = comparison.pairs
    p_regression = estimates.p_above(comparison, 1 + threshold)
    return GateComparison(comparison.ratio, comparison.p_value, p_regression, (n, n), comparison.anytime)


def decide(comparisons: Sequence[GateComparison], alpha: float, min_effect: float) -> list[str]:
    """The gate's verdicts of compared cells, with the Benjamini-Hochberg correction across all of them."""
    p_changes = intervals.benjamini_hochberg([c.p_change for c in comparisons])
    p_regressions = intervals.benjamini_hochberg([c.p_regression for c in comparisons])
    return [
        _verdict(comparison, p_change, p_regression, alpha, min_effect)
        for comparison, p_change, p_regression in zip(comparisons, p_changes, p_regressions)
    ]


def _decide(result: CheckResult, rows: list[tuple[str, str, Cell, Cell, GateComparison]], min_effect: float) -> None:
    """Verdicts for (case, contender, baseline cell, current cell, comparison) rows."""
    verdicts = decide([row[4] for row in rows], result.alpha, min_effect)
    for (case, contender, before, after, comparison), verdict in zip(rows, verdicts):
        result.cells.append(CellCheck(case, contender, _median(before), _median(after), comparison, verdict))


def check_instructions(
    checked: CheckResult,
    counts: Sequence[tuple[str, str, InstructionsEstimate, InstructionsEstimate]],
    threshold: float,
) -> None:
    """Add the instruction verdicts of (case, contender, baseline, current) counts to ``checked``: a
    REGRESSION when even the smallest ratio the spreads allow exceeds 1 + ``threshold``. Each is
    paired with the wall-time verdict of the same cell, and a note says when the two disagree by
    more than DISAGREEMENT_FACTOR (instructions miss I/O, system calls and cache effects)."""
    checked.instructions_threshold = threshold
    times = {(cell.case, cell.contender): cell.comparison.ratio.value for cell in checked.cells}
    for case, contender, before, after in counts:
        verdict = _spread_verdict(after.ratio_to(before), threshold, MORE_INSTRUCTIONS, FEWER_INSTRUCTIONS)
        checked.instructions.append(InstructionCheck(case, contender, before, after, verdict))
        time_ratio = times.get((case, contender), math.nan)
        if time_ratio > 0:
            disagreement = Disagreement(case, contender, after.value / before.value, time_ratio)
            if disagreement.factor > DISAGREEMENT_FACTOR:
                checked.notes.append(
                    f"{case}/{contender}: instructions {disagreement.instruction_ratio - 1:+.2%} but wall time "
                    f"{format_ratio_estimate(time_ratio)}: the difference is in what instructions do not see (I/O, system "
                    "calls, waiting, cache misses)"
                )


def check_memory(
    checked: CheckResult,
    figures: Sequence[tuple[str, str, dict[str, ProcessSpread], dict[str, ProcessSpread]]],
    threshold: float,
) -> None:
    """Add the memory verdicts of (case, contender, baseline figures, current figures) to ``checked``,
    figures by name (ALLOCATED, PEAK): a REGRESSION when even the smallest ratio the processes allow
    exceeds 1 + ``threshold`` and the medians are more than SMALLEST_MEMORY_DIFFERENCE bytes apart
    (what the figures are accurate to: 0 B against 8 B is no regression)."""
    checked.memory_threshold = threshold
    for case, contender, before, after in figures:
        for figure in (ALLOCATED, PEAK):
            if figure not in before or figure not in after:
                continue
            old, new = before[figure], after[figure]
            verdict = (
                _spread_verdict(new.ratio_to(old), threshold, MORE_MEMORY, LESS_MEMORY)
                if abs(new.value - old.value) > SMALLEST_MEMORY_DIFFERENCE
                else SAME_MEMORY
            )
            checked.memory.append(MemoryCheck(case, contender, figure, old, new, verdict))


def _spread_verdict(change: Interval, threshold: float, more: str, less: str) -> str:
    """The verdict on a change of figures that repeat almost exactly (their range is the interval)."""
    if change.low > 1 + threshold:
        return REGRESSION
    if change.low > 1:
        return more
    return less if change.high < 1 else SAME_INSTRUCTIONS


def _median(cell: Cell) -> float:
    return float(np.median(np.concatenate(cell.process_values())))


def confirm(first: CheckResult, again: CheckResult) -> CheckResult:
    """A regression stands only if a fresh measurement of the current code shows it again: a run
    slowed from start to end by a busy machine is rarely followed by another one. A fresh
    measurement that decides nothing leaves it standing."""
    second = {(cell.case, cell.contender): cell for cell in again.cells}
    cells, unsettled = [], []
    for cell in first.cells:
        repeat = second.get((cell.case, cell.contender))
        if cell.verdict != REGRESSION:
            pass
        elif repeat is None or repeat.verdict == UNDECIDED:
            # A re-measurement that decided nothing (one round before the budget ran out, or none)
            # neither shows the regression again nor clears it: the first measurement stands.
            unsettled.append(f"{cell.case}/{cell.contender}")
        elif repeat.verdict != REGRESSION:
            cell = replace(cell, verdict=NOT_REPRODUCED)
        elif repeat.comparison.ratio.low < cell.comparison.ratio.low:
            cell = repeat  # the more conservative of the two measurements
        cells.append(cell)
    notes = list(first.notes)
    if unsettled:
        notes.append(
            f"the re-measurement of {', '.join(unsettled)} decided nothing (fewer than 2 rounds: raise "
            "--max-time); the first measurement's regression stands"
        )
    return replace(first, cells=cells, notes=notes)


def _verdict(comparison: GateComparison, p_change: float, p_regression: float, alpha: float, min_effect: float) -> str:
    if min(comparison.processes) < 2:
        return UNDECIDED
    if p_regression <= alpha:
        return REGRESSION
    verdict = estimates.verdict(comparison.ratio.value, p_change, alpha, min_effect)
    return SLOWER_WITHIN_THRESHOLD if verdict == SLOWER else verdict


def comparability_notes(baseline: RunResult, current: RunResult) -> list[str]:
    """Warnings when the two runs were not measured on the same machine and interpreter."""
    notes = []
    for what, key, fingerprint in (
        ("machine", "machine", machine_fingerprint),
        ("interpreter", "python", python_fingerprint),
    ):
        old, new = baseline.metadata.get(key) or {}, current.metadata.get(key) or {}
        if fingerprint(old) != fingerprint(new):
            describe = (
                (lambda m: f"{m.get('cpu_model')}, {m.get('cpu_count')} cores, {m.get('os')}")
                if key == "machine"
                else (lambda p: f"{p.get('implementation')} {p.get('version')}")
            )
            notes.append(
                f"different {what}: baseline {describe(old)}; current {describe(new)} "
                "(timings may differ for reasons other than the code)"
            )
    return notes
