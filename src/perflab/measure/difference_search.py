"""Equivalence fuzzing seen from the parent: one worker job per contender, and its verdict.

The work happens in the worker (perflab.bench.worker.fuzz), where the benchmark is loaded: generated inputs
and stateful call patterns, the contender against the reference, in one process. This module
builds that job and turns what the worker reported into a ``FuzzResult``, the way
perflab.measure.equivalence does for the declared cases.
"""

from __future__ import annotations

import functools
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perflab.bench.protocol import Job, fuzz_job
from perflab.bench.worker import contender_lines
from perflab.bench.worker.fuzz import GENERATED_KINDS, PATTERNS, STATEFUL_PATTERNS
from perflab.measure.budget import Budget
from perflab.measure.equivalence import skip_reason
from perflab.measure.launcher import JobOutcome, run_job
from perflab.measure.parallel_checks import side_by_side
from perflab.measure.sides import Side
from perflab.results.model import EQUIVALENT, ERROR, FUZZING_CASE, INVALID, NOT_EQUIVALENT, SKIPPED, Equivalence

DEFAULT_EXAMPLES = 200  # generated inputs per contender: seconds, not minutes, for most operations
DEFAULT_SEED = 0  # fixed: the same run finds the same counterexample
GENERATE_SHARE = 0.5  # of fuzzing's time, what generated inputs may take (perflab.measure.budget)


@dataclass
class FuzzResult:
    contender: str
    status: str  # "equivalent" | "not equivalent" | "mutates input" | "error" | "skipped"
    difference: str | None = None  # the first difference found, or the error
    counterexample: str | None = None  # repr of the (shrunk) input, and for a pattern how it was used
    pattern: str | None = None  # None: a generated input; else a key of perflab.bench.worker.fuzz.PATTERNS
    examples_run: int = 0  # generated inputs compared
    calls: int = 0  # contender calls made by the stateful patterns
    rejected_compared: int = 0  # inputs the reference rejected, on which the contender's errors were compared
    notes: list[str] = field(default_factory=list)  # what was skipped and why
    largest_input: int = 0  # items (characters, keys) of the largest input compared
    declared_largest: int = 0  # items of the largest declared case input
    unrun_lines: list[int] = field(default_factory=list)  # contender lines no checked input executed
    kinds: dict[str, int] = field(default_factory=dict)  # of examples_run, how many were made each way
    domain: str = ""  # what the declared inputs are
    outside_differences: int = 0  # generated inputs outside the domain on which the two differed
    outside: str | None = None  # the first of them: why outside, the difference, the counterexample
    constants: int = 0  # constants mined from the code of both sides
    compared: int = 0  # of them, values their comparisons test against (in the bytecode or at run time)

    def evidence(self) -> dict[str, Any]:
        """What an "equivalent" from fuzzing rests on, for the results (Equivalence.evidence)."""
        return {
            "generated_inputs": self.examples_run,
            "stateful_calls": self.calls,
            "rejected_inputs": self.rejected_compared,
            "largest_input": self.largest_input,
            "declared_largest": self.declared_largest,
            "unrun_lines": self.unrun_lines,
            "generated_kinds": self.kinds,
            "domain": self.domain,
            "constants_mined": self.constants,
            "constants_compared": self.compared,
            "outside_differences": self.outside_differences,
            "outside": self.outside,
        }

    def summary(self) -> str:
        """The evidence in words: "equivalent on 400 inputs, 31 rejected; ...; lines 12-14 never ran"."""
        made = ", ".join(f"{self.kinds[kind]} {kind}" for kind in GENERATED_KINDS if self.kinds.get(kind))
        text = (
            f"equivalent on {self.examples_run + self.calls} inputs ({self.examples_run} generated"
            f"{f': {made}' if made else ''}; {self.calls} stateful calls), {self.rejected_compared} rejected"
            f"; largest {self.largest_input} items (declared cases up to {self.declared_largest})"
        )
        if self.constants:
            compared = f" ({self.compared} of them compared against)" if self.compared else ""
            text += f"; {self.constants} constants mined from the code{compared}"
        if self.domain:
            text += f"; domain: {self.domain}"
        if self.unrun_lines:
            text += f"; contender lines {contender_lines.ranges(self.unrun_lines)} never ran"
        if self.outside:
            many = f" (and {self.outside_differences - 1} more)" if self.outside_differences > 1 else ""
            text += f"; a difference outside the declared inputs{many}: {self.outside}"
        return text

    @property
    def caught_by(self) -> str | None:
        """Which part of fuzzing found the difference, in words."""
        if self.status not in INVALID:
            return None
        return PATTERNS[self.pattern] if self.pattern else "generated inputs"


def fuzz_contender(
    file: str | Path,
    contender: str,
    reference: str,
    run_job: Callable[[Job], JobOutcome],
    examples: int = DEFAULT_EXAMPLES,
    seed: int = DEFAULT_SEED,
    sys_path: list[str] | None = None,
    patterns: list[str] | None = None,
    generate_seconds: float | None = None,
) -> FuzzResult:
    """Fuzz one contender against the reference in a worker started by ``run_job``.

    ``run_job(job) -> JobOutcome`` is e.g. ``lambda job: launcher.run_job(job, timeout, python)``.
    ``examples=0`` skips the generated inputs (``--no-fuzz``); the stateful patterns still run on
    the declared cases. ``sys_path``: directories the worker imports from first (a revision's
    worktree); the reference and the contender always come from the same file and process.
    ``patterns``: the stateful patterns to run (default all of perflab.bench.worker.fuzz.STATEFUL_PATTERNS).
    ``generate_seconds``: how long generated inputs may go on (None: until ``examples``).
    """
    unknown = sorted(set(patterns or ()) - set(STATEFUL_PATTERNS))
    if unknown:
        raise ValueError(f"unknown fuzzing pattern(s) {', '.join(unknown)}; choose from {', '.join(STATEFUL_PATTERNS)}")
    outcome = run_job(
        fuzz_job(str(file), contender, sys_path or [], reference, examples, seed, patterns, generate_seconds)
    )
    if not outcome.ok:
        skipped = skip_reason(outcome)
        if skipped:
            return FuzzResult(contender, SKIPPED, skipped)
        where = f" ({outcome.location})" if outcome.location else ""
        return FuzzResult(contender, ERROR, (outcome.error or "") + where)
    report = outcome.of("fuzz")[0]
    return FuzzResult(
        contender,
        EQUIVALENT if report["equivalent"] else (report.get("status") or NOT_EQUIVALENT),
        report["difference"],
        report["counterexample"],
        report["pattern"],
        report["examples_run"],
        report["calls"],
        report["rejected_compared"],
        report["notes"],
        report["largest_input"],
        report["declared_largest"],
        report["unrun_lines"],
        report["kinds"],
        report["domain"],
        report["outside_differences"],
        report["outside"],
        report["constants"],
        report["compared"],
    )


def fuzz_sides(
    sides: list[Side], timeout: float, examples: int = DEFAULT_EXAMPLES, budget: Budget | None = None
) -> list[Equivalence]:
    """Fuzz every contender of ``sides`` (contenders of one file; ``sides[0]`` is the reference)
    side by side, one worker each, none outlasting ``budget`` (the checks' share of --max-time): the verdicts, under case
    FUZZING_CASE, that ``run`` and ``compare`` put beside the declared cases'."""
    reference = sides[0]
    # Generated inputs may take half of what the budget leaves fuzzing: the aimed inputs and the
    # stateful patterns after them must end within it too.
    generate_seconds = GENERATE_SHARE * (budget.ends - time.monotonic()) if budget else None
    fuzzed = side_by_side(
        [
            functools.partial(
                fuzz_contender,
                side.file,
                side.contender,
                reference.contender,
                functools.partial(_run_on, side, timeout, budget),
                examples=examples,
                generate_seconds=generate_seconds,
            )
            for side in sides[1:]
        ]
    )
    verdicts = []
    for side, found in zip(sides[1:], fuzzed):
        difference = found.difference
        if found.status in INVALID:
            shown = found.counterexample or ""
            difference = f"{found.caught_by}: {found.difference}; counterexample: {shown}{_named_characters(shown)}"
        notes = "; ".join(found.notes) or None
        evidence = None
        if found.status == EQUIVALENT:
            notes = found.summary() + (f"; {notes}" if notes else "")
            evidence = found.evidence()
        verdicts.append(Equivalence(FUZZING_CASE, side.name, found.status, difference, notes, evidence=evidence))
    return verdicts


def _named_characters(text: str) -> str:
    """' (U+212A KELVIN SIGN)' for the few non-ASCII characters of a counterexample: its repr
    shows the Kelvin sign as a K and the long s as an f-like letter, and the input is that
    character. Nothing for ASCII, nor for text with more than three (a sentence in Greek)."""
    strange = sorted({character for character in text if not character.isascii()})
    if not strange or len(strange) > 3:
        return ""
    return " (" + ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in strange) + ")"


def _run_on(side: Side, timeout: float, budget: Budget | None, job: Job) -> JobOutcome:
    return run_job(job, timeout, side.python, budget=budget)
