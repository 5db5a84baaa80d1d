"""Equivalence before timing: every side's output against the reference side's, per case.

Each check runs in its own worker process, so a contender that crashes or hangs is reported
and the others are still checked. Sides that can share a process with the reference (contenders
of one file) are compared inside one worker; others (another revision or interpreter) receive the
reference's output pickled from a worker of the reference side.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from perflab.bench import protocol
from perflab.bench.comparators import NotCompared
from perflab.measure.launcher import JobOutcome
from perflab.measure.parallel_checks import side_by_side
from perflab.measure.sides import Side
from perflab.results.model import (
    EQUIVALENT,
    ERROR,
    MUTATES_INPUT,
    NOT_EQUIVALENT,
    NOT_INSTALLED,
    REFERENCE,
    SHARES_OUTPUT,
    SKIPPED,
    Equivalence,
)

# run(job, side, hash_seed): hash_seed is the worker's PYTHONHASHSEED, None to inherit it.
JobRunner = Callable[[protocol.Job, Side, "str | None"], JobOutcome]
# case -> side name -> the side's output on the case, pickled (for the hash-seed check)
Outputs = dict[str, dict[str, str]]


def check_case(
    case: str, sides: list[Side], run: JobRunner, outputs: Outputs | None = None
) -> tuple[list[Equivalence], list | None]:
    """Check every side on one case; ``sides[0]`` is the reference. Returns the verdicts and the
    case's declared work; each side's pickled output is added to ``outputs`` when given.

    The reference is checked against itself too: that catches a reference that raises, one that
    changes its input (timing would repeat calls on the changed input), and an output that is not
    deterministic (then no contender can be held to it).
    """
    reference = sides[0]
    send_output = outputs is not None
    sharing = [side for side in sides if side.shares_process_with(reference)]
    apart = [side for side in sides if not side.shares_process_with(reference)]

    def check_sharing(side: Side) -> Callable[[], JobOutcome]:
        return lambda: run(
            protocol.check_job(
                side.file, side.contender, side.sys_path, case, send_output, reference=reference.contender
            ),
            side,
            None,
        )

    def reference_output() -> JobOutcome:
        return run(protocol.output_job(reference.file, reference.contender, reference.sys_path, case), reference, None)

    # Checks run side by side (perflab.measure.parallel_checks); the sides that cannot share the
    # reference's process need its output first.
    done = side_by_side([*map(check_sharing, sharing), *([reference_output] if apart else [])])
    outcomes: dict[str, JobOutcome | str] = {side.name: outcome for side, outcome in zip(sharing, done)}
    if apart:
        expected = done[-1]
        if not expected.ok:
            outcomes.update({side.name: f"the reference's output is not available: {expected.error}" for side in apart})
        else:
            given = expected.of("output")[0]

            def check_apart(side: Side) -> Callable[[], JobOutcome]:
                return lambda: run(
                    protocol.check_job(side.file, side.contender, side.sys_path, case, send_output, expected=given),
                    side,
                    None,
                )

            outcomes.update(zip((side.name for side in apart), side_by_side([check_apart(side) for side in apart])))
    verdicts, work = [], None
    for side in sides:
        outcome = outcomes[side.name]
        if isinstance(outcome, str):
            verdicts.append(Equivalence(case, side.name, ERROR, outcome))
            continue
        work_events = outcome.of("work")
        if work_events:
            work = work_events[0]["work"]
        verdicts.append(_verdict(case, side.name, side is reference, outcome))
        sent = outcome.of("check")[0]["output"] if send_output and outcome.ok else None
        if outputs is not None and sent is not None:
            outputs.setdefault(case, {})[side.name] = sent
    return verdicts, work


def not_compared(cases: list[str], sides: list[Side]) -> list[Equivalence]:
    """The verdicts of a benchmark that compares no outputs (a pyperf script's), without a check
    job: it would only run each case's set-up once more, in a process of its own, which the first
    timing worker does anyway (its error is then the case's)."""
    return [
        Equivalence(
            case,
            side.name,
            REFERENCE if index == 0 else EQUIVALENT,
            note=NotCompared.note,
            comparator=NotCompared.name,
        )
        for case in cases
        for index, side in enumerate(sides)
    ]


def check_hash_seed(sides: list[Side], outputs: Outputs, verdicts: list[Equivalence], run: JobRunner) -> None:
    """Each side again, in one worker under another PYTHONHASHSEED, on every case in ``outputs``
    (filled by check_case); a side whose output changes with the seed becomes NOT EQUIVALENT on
    that case in ``verdicts`` (for the reference: its output is not deterministic)."""
    seed = "1" if os.environ.get("PYTHONHASHSEED") == "0" else "0"  # differs from the check jobs' seed
    checked = [
        (index, side, {case: by_side[side.name] for case, by_side in outputs.items() if side.name in by_side})
        for index, side in enumerate(sides)
    ]
    checked = [(index, side, expected) for index, side, expected in checked if expected]

    def check(side: Side, expected: dict[str, str]) -> Callable[[], JobOutcome]:
        return lambda: run(protocol.seed_job(side.file, side.contender, side.sys_path, expected), side, seed)

    done = side_by_side([check(side, expected) for _, side, expected in checked])
    for (index, side, expected), outcome in zip(checked, done):
        if not outcome.ok:
            continue  # the check jobs ran the same code: a failure here is a rerun's, not a verdict
        for case, difference in outcome.of("seed")[0]["differences"].items():
            verdict = next(v for v in verdicts if v.case == case and v.contender == side.name)
            whose = "the reference's" if index == 0 else "its"
            verdict.status = NOT_EQUIVALENT
            # The seed job runs every case in one process, the check jobs one case each: a case
            # run alone under the same seed tells the hash seed from state kept across calls.
            alone = run(protocol.seed_job(side.file, side.contender, side.sys_path, {case: expected[case]}), side, seed)
            if alone.ok and not alone.of("seed")[0]["differences"]:
                verdict.difference = (
                    f"{whose} output depends on what ran before it in the same process (state kept "
                    f"between calls, e.g. a cache keyed by id()): after the other cases, {difference}"
                )
                continue
            verdict.difference = (
                f"{whose} output depends on the hash seed (set or dict order leaking into "
                f"it): under PYTHONHASHSEED={seed}, {difference}"
            )


def _verdict(case: str, name: str, is_reference: bool, outcome: JobOutcome) -> Equivalence:
    if not outcome.ok:
        skipped = skip_reason(outcome)
        status = SKIPPED if skipped else ERROR
        where = f" ({outcome.location})" if outcome.location and not skipped else ""
        return Equivalence(case, name, status, (skipped or outcome.error or "") + where)
    check = outcome.of("check")[0]
    comparator = check["comparator"]
    if not check["equivalent"]:
        difference = check["difference"]
        if is_reference:
            difference = f"the reference's output is not deterministic: {difference}"
        return Equivalence(case, name, NOT_EQUIVALENT, difference, comparator=comparator)
    if check.get("mutation"):
        return Equivalence(case, name, MUTATES_INPUT, check["mutation"], comparator=comparator)
    shared = check.get("shared")
    if shared:
        return Equivalence(
            case,
            name,
            SHARES_OUTPUT,
            shared + " (declare Benchmark(..., shares_output=True) if the API returns shared objects on purpose)",
            comparator=comparator,
        )
    return Equivalence(case, name, REFERENCE if is_reference else EQUIVALENT, note=check["note"], comparator=comparator)


def skip_reason(outcome: JobOutcome) -> str | None:
    """ "skipped: not installed (...)" when the contender's set-up found a declared optional
    dependency missing (perflab.bench.optional), "skipped: ..." when the benchmark itself skips the
    case (an asv setup's NotImplementedError); else None: any other ImportError is an error."""
    errors = outcome.of("error")
    if errors and errors[0].get("missing"):
        return f"{NOT_INSTALLED} ({errors[0]['detail']})"
    if errors and errors[0].get("skipped"):
        return f"skipped: {errors[0]['skipped']}"
    return None
