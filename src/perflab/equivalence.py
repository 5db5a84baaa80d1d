"""Equivalence before timing: every contender's output against the reference's, per case.

Each check runs in its own worker process, so a contender that crashes or hangs is reported
and the others are still checked.
"""

from __future__ import annotations

from typing import Callable

from perflab.launcher import JobOutcome
from perflab.results import EQUIVALENT, ERROR, NOT_EQUIVALENT, REFERENCE, SKIPPED, Equivalence

JobRunner = Callable[[dict], JobOutcome]


def check_case(file: str, case: str, contenders: list[str], reference: str,
               run: JobRunner) -> tuple[list[Equivalence], list | None]:
    """Check every contender on one case. Returns the verdicts and the case's declared work.

    The reference is checked against itself too: that catches a reference that raises, and
    an output that is not deterministic (then no contender can be held to it).
    """
    verdicts, work = [], None
    for contender in contenders:
        job = {"mode": "check", "file": file, "case": case, "contender": contender, "reference": reference}
        outcome = run(job)
        work_events = outcome.of("work")
        if work_events:
            work = work_events[0]["work"]
        verdicts.append(_verdict(case, contender, contender == reference, outcome))
    return verdicts, work


def _verdict(case: str, contender: str, is_reference: bool, outcome: JobOutcome) -> Equivalence:
    if not outcome.ok:
        skipped = _not_installed(outcome)
        status = SKIPPED if skipped else ERROR
        where = f" ({outcome.location})" if outcome.location and not skipped else ""
        return Equivalence(case, contender, status, (skipped or outcome.error) + where)
    check = outcome.of("check")[0]
    if check["equivalent"]:
        return Equivalence(case, contender, REFERENCE if is_reference else EQUIVALENT,
                           note=check["note"], comparator=check["comparator"])
    difference = check["difference"]
    if is_reference:
        difference = f"the reference's output is not deterministic: {difference}"
    return Equivalence(case, contender, NOT_EQUIVALENT, difference, comparator=check["comparator"])


def _not_installed(outcome: JobOutcome) -> str | None:
    errors = outcome.of("error")
    if errors and errors[0].get("exception") in ("ImportError", "ModuleNotFoundError"):
        return f"skipped: not installed ({errors[0]['detail']})"
    return None
