"""The result of a run: every raw value, the estimates, comparisons and metadata.

This is the one structure that renderers read and that ``--json`` writes. The JSON layout is
versioned (``SCHEMA``) and documented in docs/results-schema.md; ``to_json``/``from_json`` are
inverse so that saved results can be rendered, compared and imported later.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from perflab.bench.worker.integrity import MUTATES_INPUT, SHARES_OUTPUT
from perflab.credentials import mask_credentials
from perflab.results.quantities import BuildSpread, CellEstimates, Comparison, Interval
from perflab.results.verdicts import INVALID as INVALID_VERDICT
from perflab.results.verdicts import REPEAT_ONLY, UNCHECKED, Shown, show, show_memory
from perflab.results.warnings import run_warnings
from perflab.units import format_ratio

SCHEMA = "perflab.results/2"
# Version 2 added the statuses "mutates input" and "shares output" (a reader of version 1 that
# only tests for "not equivalent" would present their speedups); version-1 files read as before.
READABLE_SCHEMAS = ("perflab.results/1", SCHEMA)


@dataclass
class ProcessRun:
    """One worker process: its round, loop count and values (seconds per call).

    Calibration runs (round 0) only size the loop counts of later rounds: they are kept here but
    left out of every estimate and comparison.
    """

    round: int
    loops: int
    warmups: list[float]
    values: list[float]
    error: str | None = None
    calibration: bool = False
    # Checked after the values, outside the timed region (perflab.bench.worker.integrity); None: not checked.
    input_changed: str | None = None  # how the worker's input differed after its timed calls
    output_wrong: str | None = None  # how the last timed call's output differed from the reference's
    floor: float | None = None  # s/call of the harness's loop around an empty call (perflab.floor)
    first_call: float | None = None  # s of the first call of the process, on a fresh copy of the input
    first_call_overhead: float | None = None  # s of the same timing around an empty call: its resolution
    # Per value, beside it (perflab.bench.commands): a command's user/system CPU s, peak RSS, inner phase s.
    extra: dict[str, list[float]] = field(default_factory=dict)
    # Per value, beside it: the other clock (settings["clock"] says which ``values`` holds). With the
    # wall clock, the timed thread's CPU s/call (``cpu_values``); with the CPU clock, wall s/call
    # (``wall_values``). Empty in files written before both clocks were kept, and for imports.
    cpu_values: list[float] = field(default_factory=list)
    wall_values: list[float] = field(default_factory=list)
    # Per value: s/call the timed thread was runnable but waiting for a CPU (other processes had it).
    waited: list[float] = field(default_factory=list)
    # Of a calibration run that checked the value length: the calls each value made (None: all ``loops``).
    value_loops: list[int] | None = None
    # Per value: CPU s of one fixed piece of work timed just after it, the machine's own speed then
    # (perflab.results.machine_speed). Empty in files written before it was kept, and for imports.
    probes: list[float] = field(default_factory=list)


# How a cell's ``skipped`` begins when a dependency its contender declares optional is missing.
NOT_INSTALLED = "skipped: not installed"


@dataclass
class Cell:
    """One (case, contender) pair and everything measured for it."""

    case: str
    contender: str
    runs: list[ProcessRun] = field(default_factory=list)
    loops: int | None = None
    error: str | None = None  # the job that failed: what happened and where
    skipped: str | None = None  # why it was not measured (e.g. not installed)
    estimates: CellEstimates | None = None
    target_reached: bool = False

    def measured_runs(self) -> list[ProcessRun]:
        return [run for run in self.runs if run.values and not run.calibration]

    def round_values(self) -> dict[int, list[float]]:
        """Values of each measured process, keyed by round (for paired comparisons)."""
        return {run.round: run.values for run in self.measured_runs()}

    def process_values(self) -> list[list[float]]:
        return [run.values for run in self.measured_runs()]


@dataclass
class Equivalence:
    case: str
    contender: str
    status: str  # "equivalent" | one of INVALID | "error" | "skipped" | "reference"
    difference: str | None = None  # first difference, or the error
    note: str | None = None  # e.g. "equal as JSON; bytes differ: compact separators"
    comparator: str | None = None
    # Of an equivalent fuzzing verdict: what it rests on (generated_inputs, stateful_calls,
    # rejected_inputs, largest_input and declared_largest in items, unrun_lines of the contender,
    # generated_kinds, domain, constants_mined, constants_compared, outside_differences and outside: docs/equivalence.md).
    evidence: dict[str, Any] | None = None


EQUIVALENT, NOT_EQUIVALENT, ERROR, SKIPPED, REFERENCE = (
    "equivalent",
    "not equivalent",
    "error",
    "skipped",
    "reference",
)
# The statuses that make a speedup invalid: the contender does not do what the reference does.
INVALID = (NOT_EQUIVALENT, MUTATES_INPUT, SHARES_OUTPUT)
FUZZING_CASE = "fuzzing"  # the case of equivalence entries found on generated inputs and call patterns
# The label of an equivalent verdict no fuzzing backs: the outputs agree on the declared cases,
# which may not expose a difference (sorted(set(x)) and list(set(x)) agree on sorted small ints).
DECLARED_ONLY = "equal on declared cases"
# Why the ratio of a contender with no equivalence verdict on its case is unchecked.
NEVER_COMPARED = "its output was never compared with the reference's"


@dataclass
class CaseComparison:
    case: str
    contender: str
    reference: str
    comparison: Comparison
    p_adjusted: float
    verdict: str
    valid: bool  # False when the contender is not equivalent on this case
    # Why the ratio is not the figure varied inputs would see, though outputs agree (e.g. a memo
    # cache: the steady state is far faster than a first call); None: nothing to say.
    caution: str | None = None
    # What could not be checked of a valid ratio (too few processes timed a first call to judge
    # repeat-only speed; a first call too short to resolve); None: nothing.
    unchecked: str | None = None


def shown_of(comparison: CaseComparison, invalid: str | None, unchecked: str | None, settings: dict[str, Any]) -> Shown:
    """What every output shows for ``comparison``, given the status that makes it invalid and
    what it rests on unchecked (the run decides both: ``RunResult.shown``), and the run's settings
    (its verdicts' level)."""
    ratio = comparison.comparison.ratio
    level = (settings["alpha"], settings["min_effect"]) if "alpha" in settings and "min_effect" in settings else None
    return show(
        ratio, comparison.verdict, comparison.p_adjusted, invalid, comparison.caution, unchecked=unchecked, level=level
    )


# The metadata key of a side of a perflab compare stored on its own (``RunResult.per_side``): its
# comparisons with the reference side as the run made them (``MeasuredTogether``).
MEASURED_TOGETHER = "measured_together"


@dataclass(frozen=True)
class MeasuredTogether:
    """One comparison of a side with the reference side of the ``perflab compare`` that measured
    both, as that run decided and showed it: its rounds (a partial last one included), estimator,
    level and false-discovery family are the run's. Kept with the side's stored run, so that a
    later view of the two stored runs states the run's own numbers instead of recomputing them."""

    comparison: CaseComparison  # named by the sides' contenders, as their stored cells are
    invalid: str | None  # what made the ratio invalid in the run, or None
    unchecked: str | None  # what the ratio rested on unchecked, or None
    equivalence: str  # the equivalence label of the side on the case (``RunResult.equivalence_label``)

    def shown(self, settings: dict[str, Any]) -> Shown:
        """What the run showed for it; ``settings``: the run's (a side's stored run keeps them)."""
        return shown_of(self.comparison, self.invalid, self.unchecked, settings)

    def to_json(self) -> dict[str, Any]:
        return json_numbers(asdict(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MeasuredTogether:
        return cls(
            _case_comparison_from_json(data["comparison"]), data["invalid"], data["unchecked"], data["equivalence"]
        )


def measured_together(result: RunResult) -> tuple[str, list[MeasuredTogether]] | None:
    """The side of the reference ``result`` was compared with in the run that measured both (its
    ``compared_as`` name) and the comparisons that run made; None for any other stored run."""
    stored = result.metadata.get(MEASURED_TOGETHER)
    if not stored:
        return None
    return stored["reference"], [MeasuredTogether.from_json(entry) for entry in stored["comparisons"]]


@dataclass
class RunResult:
    benchmark: str
    file: str
    reference: str
    settings: dict[str, Any]
    metadata: dict[str, Any]
    work: dict[str, list | None]  # case -> [unit, amount per call], if declared
    cells: list[Cell] = field(default_factory=list)
    equivalence: list[Equivalence] = field(default_factory=list)
    comparisons: list[CaseComparison] = field(default_factory=list)
    geometric_means: dict[str, Interval | None] = field(default_factory=dict)
    sides: dict[str, dict] = field(default_factory=dict)  # name -> file, contender, python, sys_path
    # What ``--metric`` measured beside wall time, in the layout of perflab.metrics.Measured.to_json
    # (None: only time); read it with perflab.metrics.stored / instruction_counts. Absent from
    # files written before metrics were kept, hence the default.
    metrics: dict[str, Any] | None = None
    elapsed: float = 0.0
    equivalence_seconds: float = 0.0  # of ``elapsed``: checking equivalence (declared cases, fuzzing, hash seed)
    interrupted: bool = False
    schema: str = SCHEMA

    def cell(self, case: str, contender: str) -> Cell:
        return next(c for c in self.cells if c.case == case and c.contender == contender)

    def equivalence_of(self, case: str, contender: str) -> Equivalence | None:
        return next((e for e in self.equivalence if e.case == case and e.contender == contender), None)

    def equivalent(self, case: str, contender: str) -> bool:
        """Equivalent on ``case``, not shown to differ by fuzzing, and the reference's timing on
        ``case`` not invalid (it mutated its input): only then a speedup counts."""
        on_case = self.equivalence_of(case, contender)
        return on_case is not None and on_case.status == EQUIVALENT and self.invalid_reason(case, contender) is None

    def equivalence_label(self, case: str, contender: str) -> str:
        """The equivalence column of every renderer: "equivalent" (the declared cases and fuzzing
        agree), "equal on declared cases" (equivalent there, not fuzzed: revisions, interpreters, or
        fuzzing failed to run),
        "reference", an invalid status in capitals (with where it was found when not on this case:
        "(fuzzing)", "(reference)"), or another status ("error", "skipped"); "unchecked" for a
        compared contender whose output was never checked; "" when there is nothing to check."""
        verdict = self.equivalence_of(case, contender)
        if verdict is None:
            return UNCHECKED if self._compared(case, contender) else ""
        fuzzed = self.equivalence_of(FUZZING_CASE, contender)
        if self.equivalent(case, contender) and (fuzzed is None or fuzzed.status != EQUIVALENT):
            return DECLARED_ONLY
        if verdict.status in INVALID:
            return verdict.status.upper()
        if verdict.status == EQUIVALENT and not self.equivalent(case, contender):
            reason = self.invalid_reason(case, contender) or NOT_EQUIVALENT
            if reason.startswith("reference "):
                return f"{reason.removeprefix('reference ').upper()} (reference)"
            return f"{reason.upper()} (fuzzing)"
        return verdict.status

    def invalid_reason(self, case: str, contender: str) -> str | None:
        """The status that makes this contender's speedup on ``case`` invalid ("not equivalent",
        "mutates input", "shares output", or that of the reference), or None."""
        for name, where in ((contender, case), (contender, FUZZING_CASE), (self.reference, case)):
            verdict = self.equivalence_of(where, name)
            if verdict is not None and verdict.status in INVALID:
                return verdict.status if name == contender else f"reference {verdict.status}"
        return None

    def caution_of(self, case: str, contender: str) -> str | None:
        """Why the speed of ``contender`` on ``case`` holds for repeated calls only (its comparison's
        caution), or None; an invalid comparison's caution is left out, as ``shown`` leaves it."""
        for comparison in self.comparisons:
            if (comparison.case, comparison.contender) == (case, contender) and comparison.valid:
                return comparison.caution
        return None

    def _compared(self, case: str, contender: str) -> bool:
        return any((c.case, c.contender) == (case, contender) for c in self.comparisons)

    def unchecked_of(self, comparison: CaseComparison) -> str | None:
        """What the ratio of ``comparison`` rests on that was not checked, or None."""
        if self.equivalence_of(comparison.case, comparison.contender) is None:
            return NEVER_COMPARED
        return comparison.unchecked

    def unchecked_on(self, case: str, contender: str) -> str | None:
        """``unchecked_of`` the comparison of ``contender`` on ``case`` (None: none, or the reference)."""
        for comparison in self.comparisons:
            if (comparison.case, comparison.contender) == (case, contender):
                return self.unchecked_of(comparison)
        return None

    def shown(self, comparison: CaseComparison) -> Shown:
        """The verdict of ``comparison`` and the strings every output shows for it. A contender
        whose output was never checked is not invalid (nothing showed it differs): its ratio
        counts, with the note that it is unchecked."""
        return shown_of(comparison, self._invalid_of(comparison), self.unchecked_of(comparison), self.settings)

    def _invalid_of(self, comparison: CaseComparison) -> str | None:
        """The status that strikes ``comparison`` out as invalid, or None."""
        reason = None if comparison.valid else self.invalid_reason(comparison.case, comparison.contender)
        never_compared = self.unchecked_of(comparison) == NEVER_COMPARED
        return None if comparison.valid or (never_compared and reason is None) else (reason or NOT_EQUIVALENT)

    def together(self, comparison: CaseComparison, contender: str, reference: str) -> MeasuredTogether:
        """``comparison`` as the sides' stored runs keep it, its columns named ``contender`` and ``reference``."""
        return MeasuredTogether(
            replace(comparison, contender=contender, reference=reference),
            self._invalid_of(comparison),
            self.unchecked_of(comparison),
            self.equivalence_label(comparison.case, comparison.contender),
        )

    def memory_shown(self, comparison: CaseComparison) -> Shown | None:
        """The comparison's memory verdict: bytes allocated per call against the reference's
        (``--metric memory``); None when either was not measured."""
        measured = {
            (row["case"], row["contender"]): row.get("allocated_per_call")
            for row in (self.metrics or {}).get("memory") or []
        }
        mine, reference = (
            measured.get((comparison.case, name)) for name in (comparison.contender, comparison.reference)
        )
        if not (mine and reference):
            return None
        return show_memory(mine, reference, self.settings["min_effect"])

    def struck(self) -> dict[str, str]:
        """Contender -> "invalid" or "repeat-only": those whose ratio is struck out on some case
        (or that differ on generated inputs). Their geometric mean says so, and no headline
        names them fastest."""
        found: dict[str, str] = {}
        for comparison in self.comparisons:  # invalid is said before repeat-only, as in ``shown``
            verdict = self.shown(comparison).verdict
            if verdict == INVALID_VERDICT:
                found[comparison.contender] = INVALID_VERDICT
            elif verdict == REPEAT_ONLY:
                found.setdefault(comparison.contender, REPEAT_ONLY)
        for entry in self.equivalence:
            if entry.contender != self.reference and self.invalid_reason(entry.case, entry.contender):
                found[entry.contender] = INVALID_VERDICT
        return found

    def struck_cell(self, case: str, contender: str) -> str | None:
        """INVALID or REPEAT_ONLY when the speed of ``contender`` on ``case`` does not count (the
        report strikes its ratio out), None when it counts; the reference's own cell counts."""
        for comparison in self.comparisons:
            if (comparison.case, comparison.contender) == (case, contender):
                shown = self.shown(comparison)
                return shown.verdict if shown.struck else None
        return INVALID_VERDICT if contender != self.reference and self.invalid_reason(case, contender) else None

    def mean_shown(self, contender: str) -> str | None:
        """The geometric mean of ``contender``'s ratios over cases as every output writes it,
        qualified when some of those ratios are struck out; None when there is none."""
        mean = self.geometric_means.get(contender)
        if mean is None:
            return None
        text = format_ratio(mean.value, mean.low, mean.high)
        struck = self.struck().get(contender)
        if struck is not None:
            return f"{text} (includes {struck} cases: it does not count)"
        mine = [c for c in self.comparisons if c.contender == contender]
        return f"{text} (includes {UNCHECKED} cases)" if any(self.unchecked_of(c) for c in mine) else text

    @property
    def failures(self) -> list[str]:
        """One line per thing that went wrong; a non-empty list means a non-zero exit code."""
        lines = [f"{c.case}/{c.contender}: {c.error}" for c in self.cells if c.error]
        if not self.interrupted:
            lines += [
                f"{c.case}/{c.contender}: "
                + (
                    c.runs[-1].error  # a worker the budget stopped: what it was doing
                    if c.runs and c.runs[-1].error
                    else f"not timed: the time budget (--max-time {self.settings.get('max_time', 0):g} s) ran out first"
                )
                for c in self.cells
                if not c.error and not c.skipped and not c.measured_runs()
            ]
            if lines and "over_budget" in self.metadata:  # why the budget did not hold them
                lines.append(self.metadata["over_budget"])
        lines += [
            f"{e.case}/{e.contender}: {e.status.upper()}: {e.difference}"
            for e in self.equivalence
            if e.status in INVALID
        ]
        # Fuzzing that could not finish (its worker crashed, hung, or was stopped by --max-time)
        # checked nothing: the contender is not shown to do what the reference does.
        lines += [
            f"{e.case}/{e.contender}: {e.difference}"
            for e in self.equivalence
            if e.case == FUZZING_CASE and e.status == ERROR
        ]
        lines += [
            f"{path} changed during the run: its rounds mix two versions; run again"
            for path in self.metadata.get("changed_during_run", [])
        ]
        return lines

    @property
    def build_spread(self) -> BuildSpread | None:
        """Across built revisions with ``--build-spread``: how far two builds of the base revision time apart."""
        recorded = self.metadata.get("build_spread")
        return BuildSpread.from_json(recorded) if recorded else None

    @property
    def skips(self) -> list[str]:
        """One line per contender and reason it was not measured because something it needs is not
        installed here (a failure unless --allow-skipped), naming the cases unless it is all of them.
        A case the benchmark itself skips (an asv setup's NotImplementedError, ``skip_params``) is
        listed with the results but is no failure: the suite says it does not apply here."""
        cases: dict[tuple[str, str], list[str]] = {}
        for cell in self.cells:
            if cell.skipped and cell.skipped.startswith(NOT_INSTALLED):
                cases.setdefault((cell.contender, cell.skipped), []).append(cell.case)
        every = len({cell.case for cell in self.cells})
        return [
            f"{contender}{'' if len(skipped) == every else ' on ' + ', '.join(skipped)}: {reason}"
            for (contender, reason), skipped in cases.items()
        ]

    def to_json(self, shown: bool = True) -> dict[str, Any]:
        """Every field, and beside each comparison and geometric mean what the outputs show for it
        (``shown``, ``geometric_means_shown``, and the run's ``warnings``: derived, ignored when read back; left out with
        ``shown=False``, so that a stored run's hash does not change with how perflab words it)."""
        data = asdict(self)
        if not shown:
            return json_numbers(data)
        for entry, comparison in zip(data["comparisons"], self.comparisons):
            entry["shown"] = self.shown(comparison).to_json()
            memory = self.memory_shown(comparison)
            if memory is not None:
                entry["memory_shown"] = memory.to_json()
        data["geometric_means_shown"] = {name: self.mean_shown(name) for name in self.geometric_means}
        data["warnings"] = [warning.to_json() for warning in run_warnings(self)]
        if self.build_spread is not None:
            data["build_spread_shown"] = self.build_spread.shown
        return json_numbers(data)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunResult:
        if data.get("schema") not in READABLE_SCHEMAS:
            raise ValueError(
                f"unsupported results schema {data.get('schema')!r} "
                f"(this perflab reads {' and '.join(READABLE_SCHEMAS)})"
            )
        data = {**data, "schema": SCHEMA}  # version 1 is version 2 without the new statuses and fields
        data.pop("geometric_means_shown", None)  # derived from the rest, as ``shown`` below
        data.pop("build_spread_shown", None)
        data.pop("warnings", None)
        data["cells"] = [_cell_from_json(c) for c in data["cells"]]
        data["equivalence"] = [Equivalence(**e) for e in data["equivalence"]]
        data["comparisons"] = [_case_comparison_from_json(c) for c in data["comparisons"]]
        data["geometric_means"] = {k: _interval(v) if v else None for k, v in data["geometric_means"].items()}
        command = data.get("metadata", {}).get("command")
        if isinstance(command, str):  # runs stored before commands were masked may hold a password
            data["metadata"] = {**data["metadata"], "command": mask_credentials(command)}
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> RunResult:
        return cls.from_json(json.loads(Path(path).read_text()))

    def per_side(self, benchmark_file: str) -> list[RunResult]:
        """A comparison of git revisions or interpreters as one run per side, each as if measured by
        ``perflab run`` there: its own commit and interpreter in the metadata, its column named by
        its contender. A benchmark's history then holds measurements of its code at each commit,
        never columns named after revisions. A run of one file's contenders is returned as it is.

        ``benchmark_file``: the benchmark in the user's repository (a revision's worktree is gone
        by the time the run is stored, and the commit's time is looked up from here)."""
        sides_metadata = self.metadata.get("sides")
        if not sides_metadata:
            return [self]
        runs = []
        reference_contender = (self.sides.get(self.reference) or {}).get("contender")
        for name, side in self.sides.items():
            measured_on = sides_metadata.get(name) or {}
            git = measured_on.get("git")
            if git and git.get("branch") == "HEAD":  # a detached worktree is on no branch
                git = {**git, "branch": None}
            contender = side["contender"]
            metadata = {key: value for key, value in self.metadata.items() if key != "sides"}
            metadata.update(
                python=measured_on.get("python"),
                git=git,
                compared_as=name,
                packages=measured_on.get("packages") or self.metadata.get("packages"),
            )
            if reference_contender is not None and name != self.reference:
                metadata[MEASURED_TOGETHER] = {
                    "reference": self.reference,
                    "comparisons": [
                        self.together(c, contender, reference_contender).to_json()
                        for c in self.comparisons
                        if c.contender == name
                    ],
                }
            runs.append(
                replace(
                    self,
                    file=benchmark_file,
                    reference=contender,
                    metadata=metadata,
                    cells=[replace(cell, contender=contender) for cell in self.cells if cell.contender == name],
                    equivalence=[],
                    comparisons=[],
                    geometric_means={},
                    sides={contender: {**side, "name": contender}},
                    metrics=_side_metrics(self.metrics, name, contender),
                )
            )
        return runs


def _side_metrics(metrics: dict[str, Any] | None, name: str, contender: str) -> dict[str, Any] | None:
    """The rows of one side in ``metrics`` (perflab.metrics.Measured.to_json), named by its contender;
    the warnings that compare sides with each other are left out."""
    if not metrics:
        return None

    def rows(key: str) -> list | None:
        found = metrics.get(key)
        return None if found is None else [{**row, "contender": contender} for row in found if row["contender"] == name]

    return {
        **metrics,
        "instructions": rows("instructions"),
        "memory": rows("memory"),
        "counters": rows("counters"),
        "disagreements": [],
    }


def _interval(data: dict) -> Interval:
    return Interval(**{k: _number(v) for k, v in data.items()})


_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _number(value: Any) -> float:
    return _NON_FINITE[value] if isinstance(value, str) and value in _NON_FINITE else value


def _case_comparison_from_json(data: dict) -> CaseComparison:
    return CaseComparison(
        **{k: v for k, v in data.items() if k not in ("shown", "memory_shown", "comparison")},
        comparison=_comparison_from_json(data["comparison"]),
    )


def _comparison_from_json(data: dict) -> Comparison:
    return Comparison(
        _interval(data["ratio"]), data["p_value"], data["pairs"], _number(data["log_se"]), data.get("anytime", False)
    )


def _cell_from_json(data: dict) -> Cell:
    data = dict(data)
    data["runs"] = [ProcessRun(**r) for r in data["runs"]]
    if data["estimates"]:
        estimates = dict(data["estimates"])
        estimates["median"], estimates["mean"] = _interval(estimates["median"]), _interval(estimates["mean"])
        data["estimates"] = CellEstimates(**estimates)
    return Cell(**data)


def json_numbers(value: Any) -> Any:
    """JSON has no infinities: write them as strings that ``_number`` reads back."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: json_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_numbers(v) for v in value]
    return value
