"""Allocation profiles: where the measured operation allocates memory, by call path.

Each run is a fresh worker process (the "allocations" job, perflab.bench.worker.allocations): it
warms up, then calls the operation N times under memray, and reports four views of those calls,
each a set of stacks with a weight (settings.MEMORY_VIEWS): bytes allocated, allocations, bytes
live at the peak, bytes still held after the calls (a cache or a leak). Stacks are trimmed to the
operation and normalized as sampled ones are, so the profile holds one view as its runs' weights
and every view of profiles (shares with intervals over runs, flame graph, folded, speedscope,
merge) works unchanged. Every run's totals of all four views are kept in its run_info, and
``per_call`` turns them into figures per call with a 95% interval across processes.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from perflab.analysis.intervals import one_sample
from perflab.bench.protocol import AllocationsEvent, allocations_job
from perflab.measure import metadata
from perflab.measure.budget import Budget
from perflab.measure.launcher import run_job
from perflab.profile.folded import Stack
from perflab.profile.model import Profile, subject
from perflab.profile.processors import normalize_stacks, path_roots, project_root, trim_to_operation
from perflab.profile.session import ProfileOutcome, stopped_because
from perflab.profile.settings import DEFAULT_MEMORY_RUNS, MEMORY_VIEWS, PER_CALL_VIEWS
from perflab.results.quantities import Interval
from perflab.units import format_bytes, format_count

MEMORY = "memray"  # the profile's "sampler"
# CPython specializes a function's bytecode after a few calls, and first calls fill caches: neither
# is the operation's steady allocation.
WARMUP_CALLS = 20
# Calls per run: as many as take this long untracked (memray slows them several times).
VALUE_TIME = 0.02


@dataclass
class AllocationSettings:
    view: str = "allocated"  # which view weighs the stacks (MEMORY_VIEWS)
    native: bool = False  # also C frames (memray's native traces)
    runs: int = DEFAULT_MEMORY_RUNS
    loops: int | None = None  # calls per run; None: as many as take VALUE_TIME untracked
    timeout: float = 60.0  # seconds a run may take
    max_time: float | None = None  # seconds all runs may take (--max-time); None: ``timeout`` per run only
    python: str = sys.executable
    sys_path: list[str] = field(default_factory=list)  # imported first: a revision's worktree


def profile_allocations(
    file: str,
    case: str,
    contender: str,
    settings: AllocationSettings,
    benchmark: str = "",
    on_run: Callable[[str], None] = lambda message: None,
) -> ProfileOutcome:
    """``settings.runs`` allocation-profiling runs of ``contender`` on ``case``, each making the same calls."""
    profile = Profile(
        metadata={
            **subject(file, case, contender, benchmark),
            "sampler": MEMORY,
            "mode": settings.view,
            "native": settings.native,
            "rate": None,
            **metadata.collect(file, settings.python),
        }
    )
    outcome = ProfileOutcome(profile)
    project = project_root(file)
    loops = settings.loops
    # One budget for all runs: a call that hangs is stopped when it is spent, the runs before kept.
    budget = Budget.starting_now(settings.max_time) if settings.max_time is not None else None
    try:
        for _ in range(settings.runs):
            job = allocations_job(
                file, contender, settings.sys_path, case, loops, VALUE_TIME, WARMUP_CALLS, settings.native
            )
            reply = run_job(job, settings.timeout, settings.python, budget=budget)
            events = reply.of("allocations")
            if not events:
                outcome.error = stopped_because(reply, case, contender) or "the worker reported no allocations"
                break
            event = events[0]
            loops = event["loops"]  # the first run's calibration: every run makes the same calls
            views, info = run_views(event, path_roots(project, event["paths"]))
            profile.runs.append(views[settings.view])
            profile.metadata["sampler_version"] = f"memray {event['memray']}"
            profile.metadata.setdefault("run_info", []).append(info)
            on_run(f"run {len(profile.runs)}: {loops} calls, {info['allocations']} allocations")
    except KeyboardInterrupt:
        outcome.interrupted = True
    profile.metadata.update(runs=len(profile.runs), samples=profile.samples)
    outcome.notes += frame_objects_note(profile)
    return outcome


def run_views(
    event: AllocationsEvent, roots: list[tuple[str, str]]
) -> tuple[dict[str, Counter[Stack]], dict[str, Any]]:
    """One run's four views, trimmed to the operation and normalized, and its ``run_info``: each
    view's total, the calls, the bytes allocated outside the operation, the frame objects."""
    views: dict[str, Counter[Stack]] = {}
    outside = 0
    for name in MEMORY_VIEWS:
        trimmed = trim_to_operation(_stacks(event["views"][name]))
        views[name] = normalize_stacks(trimmed.stacks, roots)
        outside += trimmed.outside if name == "allocated" else 0
    info: dict[str, Any] = {name: sum(view.values()) for name, view in views.items()}
    info.update(loops=event["loops"], outside_operation=outside, frame_objects=event["frame_objects"])
    return views, info


def frame_objects_note(profile: Profile) -> list[str]:
    """What the profile says of the frame objects memray made CPython create (none: nothing)."""
    counted = [info["frame_objects"] for info in profile.metadata.get("run_info", []) if info.get("frame_objects")]
    calls = sum(info["loops"] for info in profile.metadata.get("run_info", []) if info.get("frame_objects"))
    if not calls or not any(frames["count"] for frames in counted):
        return []
    made = (
        f"memray's profile hook made CPython create {format_count(sum(f['count'] for f in counted) / calls)} frame "
        f"objects per call ({format_bytes(sum(f['bytes'] for f in counted) / calls)}), which an untracked call does "
        "not allocate"
    )
    reasons = sorted({frames["not_subtracted"] for frames in counted if frames["not_subtracted"]})
    if not reasons:
        return [f"{made}: subtracted from bytes allocated and allocations (not from the peak)"]
    return [f"{made}: counted at the calling function, not subtracted ({'; '.join(reasons)})"]


def _stacks(pairs: list[Any]) -> Counter[Stack]:
    return Counter({tuple(frames): value for frames, value in pairs})


def per_process(profile: Profile) -> dict[str, list[float]]:
    """Each view's total per call (the peak as it is), one value per run (fresh process); views a
    run did not record are left out."""
    return per_run(profile.metadata.get("run_info", []))


def per_run(run_info: list[dict[str, Any]]) -> dict[str, list[float]]:
    """``per_process`` of runs' ``run_info`` (``run_views``), wherever the runs were made."""
    infos = [info for info in run_info if info.get("loops")]
    figures = {}
    for name in MEMORY_VIEWS:
        values = [info[name] / (info["loops"] if name in PER_CALL_VIEWS else 1) for info in infos if name in info]
        if values:
            figures[name] = values
    return figures


def per_call(profile: Profile) -> dict[str, Interval]:
    """Each view's total per call (the peak as it is), with a 95% t interval across the runs."""
    return {name: one_sample(values).interval for name, values in per_process(profile).items()}
