"""Profiles of a comparison: each side profiled per case, and the differential profile against the reference.

Run after the timing phase (never during it), while the sides still exist (a revision's worktree),
so each side is profiled with its own file, contender, interpreter and import roots. For every
(case, side) pair that was timed, the reference and the side are profiled in alternating rounds
and their call trees diffed, scaled by the times per call the timing phase measured.

Profiles taken under different interpreters (``--python``) differ by design in their instrument,
so their diff is skipped with a note unless ``allow_mismatch`` is given.

A command contender (perflab.bench.commands) is a program: it is sampled by perf (perflab.profile.native_perf)
as ``perflab profile`` samples it, not through the Python worker that only waits for it.

With ``memory`` settings, each side's allocations are profiled instead (perflab.profile.allocations,
memray, one side after the other: bytes per call do not depend on the machine's load), and the
differential profile is of bytes per call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from perflab.bench.commands import USER, CommandError
from perflab.bench.loading import load_benchmark
from perflab.bench.spec import BenchmarkFileError
from perflab.measure.sides import Side
from perflab.profile import native_perf
from perflab.profile.allocations import AllocationSettings, profile_allocations
from perflab.profile.diff import ProfileDiff, check_comparable, diff_profiles
from perflab.profile.model import IncomparableProfiles, Profile
from perflab.profile.pairing import profile_group
from perflab.profile.session import ProfileOutcome
from perflab.profile.settings import ProfileSettings
from perflab.results.model import RunResult
from perflab.results.quantities import Interval

INTERPRETER_NOTE = (
    "--python sides differ in interpreter by design: each side is profiled, but the "
    "differential profile is skipped unless --allow-mismatch is given"
)


@dataclass
class CaseProfiles:
    case: str
    reference: str  # side names
    other: str
    reference_profile: Profile
    other_profile: Profile
    diff: ProfileDiff | None = None
    notes: list[str] = field(default_factory=list)


def pairs_to_profile(result: RunResult) -> list[tuple[str, str]]:
    """Every (case, side) timed alongside the reference."""
    timed = {(c.case, c.contender) for c in result.cells if c.estimates is not None}
    return [
        (c.case, c.contender)
        for c in result.comparisons
        if (c.case, c.contender) in timed and (c.case, result.reference) in timed
    ]


def fastest_of_first_case(result: RunResult) -> list[tuple[str, str]]:
    """The reference and its fastest valid (equivalent) contender on the first case measured."""
    timed = {(c.case, c.contender) for c in result.cells if c.estimates is not None}
    for case in dict.fromkeys(c.case for c in result.cells):
        candidates = [
            c
            for c in result.comparisons
            if c.case == case and c.valid and (case, c.contender) in timed and (case, result.reference) in timed
        ]
        if candidates:
            return [(case, min(candidates, key=lambda c: c.comparison.ratio.value).contender)]
    return []


def profile_comparison(
    sides: Sequence[Side],
    result: RunResult,
    settings: ProfileSettings,
    pairs: Sequence[tuple[str, str]] | None = None,
    allow_mismatch: bool = False,
    on_progress: Callable[[str], None] = lambda message: None,
    memory: AllocationSettings | None = None,
) -> list[CaseProfiles]:
    """Profile each (case, side) pair with the reference (``sides[0]``) and diff them.

    The sides of one case are profiled together (perflab.profile.pairing.profile_group): the
    reference once per case, in the same rounds as every contender it is diffed with. With
    ``memory``: their allocations, each side on its own."""
    by_name = {side.name: side for side in sides}
    reference = sides[0]
    by_case: dict[str, list[str]] = {}
    for case, name in pairs if pairs is not None else pairs_to_profile(result):
        by_case.setdefault(case, []).append(name)
    profiled = []
    for case, names in by_case.items():
        on_progress(f"profiling {case}: {', '.join([reference.name, *names])}")
        group = [reference, *(by_name[n] for n in names)]
        programs = _programs(result, case, group)
        python_sides = [side for side in group if side.name not in programs]
        if memory is not None:
            outcomes = _profile_allocations(group, programs, case, memory, result.benchmark)
        else:
            outcomes = profile_group(python_sides, case, settings, result.benchmark) if python_sides else {}
        for side in group:
            if side.name in programs and memory is None and not any(o.interrupted for o in outcomes.values()):
                outcomes[side.name] = _profile_program(side, case, settings, programs[side.name])
        ref_outcome = outcomes.get(reference.name) or ProfileOutcome(Profile(), interrupted=True)
        for name in names:
            other_outcome = outcomes.get(name) or ProfileOutcome(Profile(), interrupted=True)
            entry = CaseProfiles(case, reference.name, name, ref_outcome.profile, other_outcome.profile)
            # each note named by its side, as the errors are: the two sides' can differ (a stack dump grown)
            entry.notes += [
                f"{side}: {n}" for side, o in ((reference.name, ref_outcome), (name, other_outcome)) for n in o.notes
            ]
            errors = [
                f"{side}: {o.error}" for side, o in ((reference.name, ref_outcome), (name, other_outcome)) if o.error
            ]
            entry.notes += errors
            profiled.append(entry)
            if ref_outcome.interrupted or other_outcome.interrupted:
                entry.notes.append("interrupted")
            elif not errors:
                entry.diff = _diff(entry, result, allow_mismatch)
        if any(o.interrupted for o in outcomes.values()):
            break
    return profiled


def _profile_allocations(
    sides: Sequence[Side], programs: dict[str, float | None], case: str, memory: AllocationSettings, benchmark: str
) -> dict[str, ProfileOutcome]:
    """Each side's allocation profile under its own interpreter and imports, until one is interrupted."""
    outcomes: dict[str, ProfileOutcome] = {}
    for side in sides:
        if side.name in programs:
            outcomes[side.name] = ProfileOutcome(Profile(), error="a command: memray sees Python processes only")
            continue
        settings = replace(memory, python=side.python, sys_path=side.sys_path)
        outcomes[side.name] = profile_allocations(side.file, case, side.contender, settings, benchmark)
        if outcomes[side.name].interrupted:
            break
    return outcomes


def _programs(result: RunResult, case: str, sides: Sequence[Side]) -> dict[str, float | None]:
    """The sides that are command contenders on ``case`` (their timed values carry the program's CPU
    time), with the seconds one execution took."""
    found = {}
    for side in sides:
        cell = result.cell(case, side.name)
        if any(USER in run.extra for run in cell.runs):
            found[side.name] = cell.estimates.median.value if cell.estimates else None
    return found


def _profile_program(
    side: Side, case: str, settings: ProfileSettings, seconds_per_execution: float | None
) -> ProfileOutcome:
    """A command contender's program under perf: the session's sample budget over perf's default
    runs (each perf record costs ~1.2 s of its own here; a short program runs several times under one)."""
    native = native_perf.NativeSettings(
        samples=settings.effective_samples, max_time=settings.max_time, timeout=settings.timeout
    )
    try:
        benchmark = load_benchmark(side.file)
        command = native_perf.contender_command(benchmark, case, side.contender)
        profile = native_perf.profile_command(
            command.argv, native, command.stdin, command.env, command.cwd, seconds_per_execution=seconds_per_execution
        )
    except native_perf.ProgramStopped as stopped:
        return ProfileOutcome(stopped.profile, error=f"{case}/{side.contender}: {stopped}")
    except (native_perf.NativeProfilerUnavailable, BenchmarkFileError, CommandError, OSError) as error:
        return ProfileOutcome(Profile(), error=str(error))
    except KeyboardInterrupt:
        return ProfileOutcome(Profile(), interrupted=True)
    profile.metadata.update(benchmark=benchmark.name, case=case, contender=side.contender)
    return ProfileOutcome(
        profile, notes=[f"{side.name}: a program, sampled by perf at {native.rate} Hz (cpu-clock, DWARF stacks)"]
    )


def _diff(entry: CaseProfiles, result: RunResult, allow_mismatch: bool) -> ProfileDiff | None:
    names = (entry.reference, entry.other)
    try:
        check_comparable(entry.reference_profile, entry.other_profile, names)
    except IncomparableProfiles as error:
        if not allow_mismatch:
            entry.notes.append(f"differential profile skipped: {error}")
            return None
    timed, difference = _timed(result, entry.case, entry.other)
    try:
        return diff_profiles(entry.reference_profile, entry.other_profile, names, allow_mismatch, timed, difference)
    except ValueError as error:
        entry.notes.append(f"differential profile skipped: {error}")
        return None


def _timed(result: RunResult, case: str, other: str) -> tuple[tuple[float, float] | None, Interval | None]:
    """Each side's time per call from the timing phase, and the difference with its interval."""
    reference = result.cell(case, result.reference).estimates
    comparison = next((c for c in result.comparisons if c.case == case and c.contender == other), None)
    if reference is None or comparison is None:
        return None, None
    base, ratio = reference.median.value, comparison.comparison.ratio
    if not all(math.isfinite(x) for x in (ratio.value, ratio.low, ratio.high)):
        return None, None
    return (base, base * ratio.value), Interval(
        base * (ratio.value - 1), base * (ratio.low - 1), base * (ratio.high - 1)
    )


@dataclass
class Profiler:
    """The hook that ``perflab compare`` calls after timing (while a revision's worktree still
    exists): profiles the pairs of the comparison into ``profiles``."""

    settings: ProfileSettings
    allow_mismatch: bool = False
    # (RunResult) -> [(case, side)] to profile; default every pair timed with the reference.
    pick: Callable[[RunResult], list[tuple[str, str]]] | None = None
    on_progress: Callable[[str], None] = lambda message: None
    memory: AllocationSettings | None = None  # allocation profiles (memray) instead of time profiles
    profiles: list[CaseProfiles] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C while profiling: what was profiled is kept

    def __call__(self, sides: list[Side], cases: list[str], result: RunResult) -> None:
        if len({side.python for side in sides}) > 1 and not self.allow_mismatch:
            self.notes.append(INTERPRETER_NOTE)
        pairs = self.pick(result) if self.pick is not None else None
        self.profiles = profile_comparison(
            sides, result, self.settings, pairs, self.allow_mismatch, self.on_progress, self.memory
        )
        self.interrupted = any("interrupted" in entry.notes for entry in self.profiles)
        for line in outcome_lines(self.profiles):
            self.on_progress(line)


def outcome_lines(profiles: list[CaseProfiles]) -> list[str]:
    """What the terminal says of each pair profiled: the differential profile's sentence, else why
    there is none (a side that could not be profiled, a diff refused), which the HTML report shows."""
    lines = []
    for entry in profiles:
        said = [entry.diff.explain()] if entry.diff is not None else entry.notes
        lines += [f"  {entry.case}: {text}" for text in said]
    return lines
