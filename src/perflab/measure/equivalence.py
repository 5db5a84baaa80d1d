"""Equivalence before timing: every side's output against the reference side's, per case.

Each check runs in its own worker process, so a contender that crashes or hangs is reported
and the others are still checked. Sides that can share a process with the reference (contenders
of one file) are compared inside one worker; others (another revision or interpreter) receive the
reference's output pickled from a worker of the reference side.
"""

from __future__ import annotations

from typing import Callable

from perflab.measure.launcher import JobOutcome
from perflab.measure.sides import Side
from perflab.results.model import EQUIVALENT, ERROR, NOT_EQUIVALENT, REFERENCE, SKIPPED, Equivalence

JobRunner = Callable[[dict, Side], JobOutcome]


def check_case(case: str, sides: list[Side], run: JobRunner) -> tuple[list[Equivalence], list | None]:
    """Check every side on one case; ``sides[0]`` is the reference. Returns the verdicts and the
    case's declared work.

    The reference is checked against itself too: that catches a reference that raises, and
    an output that is not deterministic (then no contender can be held to it).
    """
    reference = sides[0]
    verdicts, work, expected = [], None, None
    for side in sides:
        if side.shares_process_with(reference):
            outcome = run(side.job("check", case=case, reference=reference.contender), side)
        else:
            if expected is None:
                expected = run(reference.job("output", case=case), reference)
            if not expected.ok:
                verdicts.append(Equivalence(case, side.name, ERROR,
                                            f"the reference's output is not available: {expected.error}"))
                continue
            outcome = run(side.job("check", case=case, expected=expected.of("output")[0]["pickled"]), side)
        work_events = outcome.of("work")
        if work_events:
            work = work_events[0]["work"]
        verdicts.append(_verdict(case, side.name, side is reference, outcome))
    return verdicts, work


def _verdict(case: str, name: str, is_reference: bool, outcome: JobOutcome) -> Equivalence:
    if not outcome.ok:
        skipped = not_installed(outcome)
        status = SKIPPED if skipped else ERROR
        where = f" ({outcome.location})" if outcome.location and not skipped else ""
        return Equivalence(case, name, status, (skipped or outcome.error or "") + where)
    check = outcome.of("check")[0]
    if check["equivalent"]:
        return Equivalence(case, name, REFERENCE if is_reference else EQUIVALENT,
                           note=check["note"], comparator=check["comparator"])
    difference = check["difference"]
    if is_reference:
        difference = f"the reference's output is not deterministic: {difference}"
    return Equivalence(case, name, NOT_EQUIVALENT, difference, comparator=check["comparator"])


def not_installed(outcome: JobOutcome) -> str | None:
    """"skipped: not installed (...)" when the contender could not import a module; else None."""
    errors = outcome.of("error")
    if errors and errors[0].get("exception") in ("ImportError", "ModuleNotFoundError"):
        return f"skipped: not installed ({errors[0]['detail']})"
    return None
