"""Profiling the two sides of a comparison: fresh profile-mode workers in alternating rounds.

Kept apart from the diff maths (perflab.profile.diff): this module starts worker processes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from perflab.measure.sides import Side
from perflab.profile.model import Profile
from perflab.profile.session import ProfileOutcome, profile_operation
from perflab.profile.settings import ProfileSettings


def profile_pair(
    a: Side,
    b: Side,
    case: str,
    settings: ProfileSettings,
    benchmark: str = "",
    on_run: Callable[[str], None] = lambda message: None,
) -> tuple[ProfileOutcome, ProfileOutcome]:
    """Profile two sides in alternating rounds (A B, B A, ...), ``settings.min_runs`` rounds at least,
    each side's budget split evenly over them: the machine's drift hits both sides of a round alike."""
    rounds = settings.min_runs
    per_round = replace(
        settings, samples=max(1, settings.samples // rounds), min_runs=1, max_time=settings.max_time / (2 * rounds)
    )
    outcomes: dict[str, ProfileOutcome] = {}
    for number in range(rounds):
        for side in (a, b) if number % 2 == 0 else (b, a):
            got = profile_side(side, case, per_round, benchmark)
            for info in got.profile.metadata.get("run_info", []):
                info["round"] = number
            kept = outcomes.get(side.name)
            if kept is None:
                outcomes[side.name] = kept = got
            else:
                kept.profile.runs.extend(got.profile.runs)
                kept.profile.metadata.setdefault("run_info", []).extend(got.profile.metadata.get("run_info", []))
                kept.notes.extend(note for note in got.notes if note not in kept.notes)
                kept.error = kept.error or got.error
                kept.interrupted = got.interrupted
            on_run(f"round {number + 1}/{rounds}: {side.name} {got.profile.samples} samples")
            if got.error or got.interrupted:
                return _finish(outcomes.get(a.name), settings.samples), _finish(outcomes.get(b.name), settings.samples)
    return _finish(outcomes[a.name], settings.samples), _finish(outcomes[b.name], settings.samples)


def _finish(outcome: ProfileOutcome | None, budget: int) -> ProfileOutcome:
    if outcome is None:
        return ProfileOutcome(Profile(), error="not profiled")
    profile = outcome.profile
    profile.metadata.update(runs=len(profile.runs), samples=profile.samples, sample_budget=budget)
    return outcome


def profile_side(side: Side, case: str, settings: ProfileSettings, benchmark: str = "") -> ProfileOutcome:
    """Profile one side of a comparison: its file, contender, interpreter and import roots."""
    return profile_operation(
        side.file, case, side.contender, replace(settings, python=side.python, sys_path=list(side.sys_path)), benchmark
    )
