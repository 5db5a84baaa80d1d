"""Profiling the sides of a comparison: fresh profile-mode workers in alternating rounds.

Kept apart from the diff maths (perflab.profile.diff): this module starts worker processes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from perflab.measure.sides import Side
from perflab.profile.model import Profile
from perflab.profile.perf_sampler import LARGEST_STACK_DUMP, StacksTooDeep
from perflab.profile.session import (
    ProfileOutcome,
    StartedRun,
    profile_operation,
    stack_dump_after,
    start_run,
    with_spare_cpu_known,
)
from perflab.profile.settings import MAX_ROUNDS_FACTOR, ProfileSettings
from perflab.profile.shares import widest_half_width


def profile_group(
    sides: Sequence[Side],
    case: str,
    settings: ProfileSettings,
    benchmark: str = "",
    on_run: Callable[[str], None] = lambda message: None,
) -> dict[str, ProfileOutcome]:
    """Profile several sides in rounds whose order alternates (A B C, C B A, ...), ``settings.effective_runs``
    rounds at least, each side's budget split evenly over them: the machine's drift hits every side
    of a round alike. Further rounds follow while a side's shares are less precise than
    ``settings.share_precision`` (runs that disagree, as on a busy machine), all sides together so
    that their rounds stay paired. The reference of a comparison is profiled once per case this way and diffed
    with each contender round by round, rather than profiled again for every contender."""
    rounds = settings.effective_runs
    started = time.monotonic()
    settings = with_spare_cpu_known(settings)  # before any worker of ours starts: one rate for all rounds
    per_round = replace(
        settings,
        samples=max(1, settings.effective_samples // rounds),
        min_runs=1,
        max_time=settings.max_time / (len(sides) * rounds),
    )
    outcomes: dict[str, ProfileOutcome] = {}
    failed: set[str] = set()  # sides that stopped with an error: the others go on
    number = 0
    while another_round(
        number, settings, [widest_half_width(o.profile.runs) for n, o in outcomes.items() if n not in failed]
    ) and (number < rounds or time.monotonic() - started <= settings.max_time):
        order = [side for side in (sides if number % 2 == 0 else reversed(sides)) if side.name not in failed]
        ahead: StartedRun | None = None
        for index, side in enumerate(order):
            this, ahead = ahead, None
            if index + 1 < len(order):  # the next side's worker sets up while this one is sampled
                ahead = start_side(order[index + 1], case, per_round, outcomes.get(order[index + 1].name))
            got = profile_side(side, case, per_round, benchmark, outcomes.get(side.name), this)
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
            on_run(f"round {number + 1} (of {rounds} or more): {side.name} {got.profile.samples} samples")
            if got.interrupted:
                if ahead is not None:
                    ahead.cancel()
                return {side.name: _finish(outcomes.get(side.name), settings.effective_samples) for side in sides}
            if got.error:
                failed.add(side.name)
        number += 1
    return {side.name: _finish(outcomes.get(side.name), settings.effective_samples) for side in sides}


def another_round(done: int, settings: ProfileSettings, widest: Sequence[float]) -> bool:
    """After ``done`` rounds, whose sides know their frames' shares to the half-widths ``widest``
    (perflab.profile.shares.widest_half_width): profile another round? ``settings.effective_runs`` rounds
    always; then, with ``adaptive_rounds``, while a side is less precise than ``share_precision``,
    up to MAX_ROUNDS_FACTOR x min_runs rounds. Tested by simulation in tests/simulation/test_profile_group.py."""
    if done < settings.effective_runs:
        return True
    precision = settings.share_precision
    if precision is None or done >= settings.effective_runs * MAX_ROUNDS_FACTOR:
        return False
    return max(widest, default=0.0) > precision


def _finish(outcome: ProfileOutcome | None, budget: int) -> ProfileOutcome:
    if outcome is None:
        return ProfileOutcome(Profile(), error="not profiled")
    profile = outcome.profile
    profile.metadata.update(runs=len(profile.runs), samples=profile.samples, sample_budget=budget)
    return outcome


def profile_side(
    side: Side,
    case: str,
    settings: ProfileSettings,
    benchmark: str = "",
    earlier: ProfileOutcome | None = None,
    ahead: StartedRun | None = None,
) -> ProfileOutcome:
    """Profile one side of a comparison: its file, contender, interpreter and import roots.
    ``earlier``: the side's rounds so far (their metadata is kept; their rate sizes this round);
    ``ahead``: its first worker, from ``start_side``."""
    return profile_operation(
        side.file,
        case,
        side.contender,
        _of_side(side, settings, earlier),
        benchmark,
        achieved_rate=_achieved_rate(earlier),
        collect_metadata=earlier is None,
        ahead=ahead,
        runs=1,
    )


def start_side(
    side: Side, case: str, settings: ProfileSettings, earlier: ProfileOutcome | None = None
) -> StartedRun | None:
    """The first worker that ``profile_side`` with these arguments will use, started now."""
    return start_run(side.file, case, side.contender, _of_side(side, settings, earlier), _achieved_rate(earlier))


def _of_side(side: Side, settings: ProfileSettings, earlier: ProfileOutcome | None) -> ProfileSettings:
    return replace(settings, python=side.python, sys_path=list(side.sys_path), stack_dump=_stack_dump(earlier))


def _stack_dump(outcome: ProfileOutcome | None) -> int | None:
    """The stack dump of the side's next perf run: its last run's, the largest if that run's stacks did not fit."""
    runs = [info for info in outcome.profile.metadata.get("run_info", []) if "stack_dump" in info] if outcome else []
    if not runs:
        return None
    with contextlib.suppress(StacksTooDeep):  # that round stopped with the error, and the side with it
        return stack_dump_after(runs[-1])
    return LARGEST_STACK_DUMP


def _achieved_rate(outcome: ProfileOutcome | None) -> float | None:
    """Samples per second of operation time the side's runs so far gave (fewer than the rate on a busy machine)."""
    runs = outcome.profile.metadata.get("run_info", []) if outcome else []
    seconds = sum(info.get("seconds", 0.0) for info in runs)
    return sum(info["samples"] for info in runs) / seconds if seconds > 0 else None
