"""A profiling session: repeated profiling runs of one (case, contender) until the sample budget is met.

Each run is a fresh worker process in "profile" mode (never a timing worker: timings are not taken
under a profiler). The worker sets up and calibrates before the sampler attaches, then keeps the
operation running inside ``measured_region`` for the run's duration. Many short runs at a modest
rate, rather than one long run at a high rate: the sampler slows the target less, and the spread
between runs (fresh processes) is what the intervals of per-frame shares need.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from perflab.bench.protocol import InProcessSampling, profile_job
from perflab.measure import metadata
from perflab.measure.budget import Budget
from perflab.measure.launcher import JobOutcome, Worker, WorkerProcess
from perflab.profile.folded import Stack
from perflab.profile.model import Profile, subject
from perflab.profile.native_perf import check_perf, perf_version
from perflab.profile.perf_sampler import (
    STACK_DUMP,
    TRUNCATED_SHARE,
    PerfRecording,
    StacksTooDeep,
    call_graph,
    next_stack_dump,
    perf_unavailable,
    too_truncated,
)
from perflab.profile.perf_trampolines import Trampoline, interpreter_trampoline
from perflab.profile.processors import normalize_stacks, path_roots, project_root, trim_to_operation
from perflab.profile.sampler import PySpyRecording, SamplerUnavailable, find_py_spy, py_spy_version
from perflab.profile.settings import AUTO, INPROCESS, INPROCESS_DESCRIPTION, PERF, PY_SPY, ProfileSettings
from perflab.profile.sources import read_sources
from perflab.profile.spare_cpu import has_spare_cpu

# Runs in a row without a single sample before the sampler is taken not to see the operation: a
# loaded machine can starve a run, even the first (each empty run makes the next one longer).
EMPTY_RUNS_BEFORE_GIVING_UP = 3
# Runs aim this much above their share of the samples: at an exact share, the last run fell a few
# samples short about half the time (a loaded machine's rate varies) and a whole run topped it up
# (~1 s with perf: 6 runs for 2,000 samples where 5 were planned).
RUN_MARGIN = 1.03
# The last planned run aims this much above what is left: one that falls short costs a whole run
# more (a py-spy profile: 8 runs of 0.25 s, the 8th at 920 samples a second where the others gave
# ~1,000, then a ninth). Simulated with each run's rate 4% apart (tests/unit/test_profile_session.py),
# a run more followed in 30% of sessions at 1.03, 10% at 1.10, 3% at 1.15; and 2,000-sample sessions
# took fewer samples in all at 1.15 (2,063 on average against 2,074: a run more is at least half a run).
LAST_RUN_MARGIN = 1.15


@dataclass
class ProfileOutcome:
    profile: Profile
    error: str | None = None  # why the session stopped early (the runs so far are kept)
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False


@dataclass
class StartedRun:
    """A profiling worker started ahead of its turn: it sets up on the sampler's CPU while another
    worker is sampled on the target's (perflab.profile.pairing), or while the recording of the run
    before it is read (perf), so its start-up costs no wall time."""

    worker: Worker
    sampler: str
    seconds: float  # the duration of its run, fixed in its job
    perf: PerfRecording | None = None  # the perf record that started the worker (sampling off until its run)

    def cancel(self) -> None:
        if self.perf is not None and self.perf.pid is None:  # the worker's jit dump is named by its pid
            seen = [event for event in self.worker.outcome.events if event["event"] == "ready"]
            ready = seen[0] if seen else self.worker.wait_for("ready")
            self.perf.pid = ready["pid"] if ready else None
        self.worker.close()
        if self.perf is not None:
            self.perf.cleanup()


def start_run(
    file: str, case: str, contender: str, settings: ProfileSettings, achieved_rate: float | None = None
) -> StartedRun | None:
    """Start the worker of the first run that ``profile_operation`` with these arguments would make."""
    sampler, _ = _choose_sampler(settings)
    if sampler is None:
        return None
    seconds = _first_run_seconds(settings, settings.rate_for(sampler), achieved_rate)
    return _started(file, case, contender, settings, sampler, seconds)


def _started(
    file: str, case: str, contender: str, settings: ProfileSettings, sampler: str, seconds: float
) -> StartedRun:
    """A worker for a run of ``seconds``, started now (under its perf record with perf)."""
    perf = PerfRecording(settings.rate_for(sampler), settings.stack_dump or STACK_DUMP) if sampler == PERF else None
    worker = _start_worker(file, case, contender, settings, sampler, seconds, perf)
    return StartedRun(worker, sampler, seconds, perf)


def profile_operation(
    file: str,
    case: str,
    contender: str,
    settings: ProfileSettings,
    benchmark: str = "",
    on_run: Callable[[str], None] = lambda message: None,
    achieved_rate: float | None = None,
    collect_metadata: bool = True,
    ahead: StartedRun | None = None,
    runs: int | None = None,
) -> ProfileOutcome:
    """Profile ``contender`` on ``case`` of the benchmark ``file`` until ``settings.effective_samples`` are collected
    (and ``settings.effective_runs`` runs made), or in exactly ``runs`` runs sized for that budget.

    ``achieved_rate``: samples per second earlier sessions of this side achieved (rounds of
    perflab.profile.pairing), to size the first run as the later ones are sized.
    ``collect_metadata``: False for a further round of a side whose first round collected the
    interpreter, machine and git facts (0.15 s of subprocesses each time).
    ``ahead``: the worker of the first run, started by ``start_run`` (closed here if not used); its
    run lasts the seconds it was started for. With perf, the first run's worker, when not given, is
    started before the machine's facts are collected, and each later run's once the run before it
    has ended, while its recording is read (a second or more), sized from the samples per second so
    far (the run being read counted at that rate); it is closed if that run turns out to be the
    last. Nothing else of the session runs while a worker is sampled.
    ``runs``: a round of perflab.profile.pairing is one run: a run that falls a few samples short
    of the round's share is not followed by a whole second run (later rounds are sized by the
    samples per second achieved, and more rounds follow while the shares are imprecise).
    """
    requested = settings
    sampler, reason = _choose_sampler(settings)
    if sampler == PERF:  # chosen by auto too: its budget and rate are perf's
        settings = replace(settings, sampler=PERF, native=True, stack_dump=settings.stack_dump or STACK_DUMP)
    settings = with_spare_cpu_known(settings)
    rate = settings.rate_for(sampler) if sampler else None
    if ahead is None and sampler == PERF and rate is not None:  # it sets up while the facts below are collected
        ahead = _started(file, case, contender, settings, sampler, _first_run_seconds(settings, rate, achieved_rate))
    profile = Profile(
        metadata={
            **subject(file, case, contender, benchmark),
            "mode": settings.mode,
            "rate": rate,
            "native": settings.native,
            "lines": settings.lines,
            "sample_budget": settings.effective_samples,
            **(metadata.collect(file, settings.python) if collect_metadata else {}),
        }
    )
    outcome = ProfileOutcome(profile)
    if sampler is None or rate is None:
        if ahead is not None:
            ahead.cancel()
        outcome.error = reason
        return outcome
    planned_seconds = settings.effective_samples / (settings.effective_runs * rate)
    run_seconds, sampled_seconds = _first_run_seconds(settings, rate, achieved_rate), 0.0
    roots: list[tuple[str, str]] = []  # those the runs' paths were shortened with
    project = project_root(file)
    started = time.monotonic()
    empty_runs_in_a_row = 0
    truncated = 0  # perf's samples whose stack did not fit in its dump, over every run made
    following: list[StartedRun] = []  # the next run's worker, started while this run's recording is read
    try:
        while (
            len(profile.runs) < runs
            if runs is not None
            else profile.samples < settings.effective_samples or len(profile.runs) < settings.effective_runs
        ):
            if time.monotonic() - started > settings.max_time:
                outcome.notes.append(
                    f"time budget of {settings.max_time:g} s spent: {profile.samples} "
                    f"of {settings.effective_samples} samples collected"
                )
                break
            if ahead is None and following:
                ahead = following.pop()
            this: StartedRun | None = None
            if ahead is not None:
                # a perf worker started before the run that made the stack dump larger is started again
                if ahead.sampler == sampler and (ahead.perf is None or ahead.perf.stack_dump == settings.stack_dump):
                    this, run_seconds = ahead, ahead.seconds
                else:
                    ahead.cancel()
                ahead = None
            upcoming = _following_seconds(profile, sampled_seconds, run_seconds, settings, rate, achieved_rate, runs)
            start_following = (
                functools.partial(_start_ahead, following, file, case, contender, settings, sampler, upcoming)
                if sampler == PERF and upcoming is not None
                else None
            )
            try:
                run, info, error, run_roots = _one_run(
                    file, case, contender, settings, sampler, rate, run_seconds, project, this, start_following
                )
            except SamplerUnavailable as unavailable:
                if requested.sampler != AUTO or profile.runs:
                    outcome.error = str(unavailable)
                    break
                # auto: perf that cannot record gives way to py-spy, py-spy that cannot attach to the worker's own sampler
                if sampler == PERF and find_py_spy() is not None:
                    sampler, settings = PY_SPY, requested
                else:
                    sampler = INPROCESS
                reason = str(unavailable)
                rate = profile.metadata["rate"] = settings.rate_for(sampler)
                profile.metadata["sample_budget"] = settings.effective_samples
                planned_seconds = settings.effective_samples / (settings.effective_runs * rate)
                run_seconds = _first_run_seconds(settings, rate, achieved_rate)
                continue
            # An empty run is most often a loaded machine (CPU-time samples of a process that waited
            # for a CPU all along, seen in CI for a first run too): it is left out (a share of nothing
            # is undefined) and the next run is lengthened. Only EMPTY_RUNS_BEFORE_GIVING_UP empty runs
            # without any sample at all mean a sampler that cannot see the operation.
            empty = run is not None and info["samples"] == 0
            # perf's: a run whose stacks were too deep for its dump is left out too (its shares would
            # under-count the deepest code), and the later runs copy more
            cut = "truncated" in info and too_truncated(info["truncated"], info["samples"] + info["outside_operation"])
            if "truncated" in info:
                truncated += info["truncated"]
                try:
                    dump = stack_dump_after(info)
                except StacksTooDeep as too_deep:
                    outcome.error = str(too_deep)
                    break
                settings = replace(settings, stack_dump=dump)
            empty_runs_in_a_row = empty_runs_in_a_row + 1 if empty and not cut and profile.samples == 0 else 0
            if run is not None:
                if not cut:  # (the samples per second are those of runs that kept theirs)
                    sampled_seconds += run_seconds
                if not empty and not cut:
                    profile.runs.append(run)
                    roots = run_roots
                    profile.metadata.setdefault("run_info", []).append(info)
                run_seconds = _next_run_seconds(
                    planned_seconds,
                    profile.samples / sampled_seconds if sampled_seconds else rate,
                    rate,
                    settings.effective_samples - profile.samples,
                    settings.effective_runs - len(profile.runs),
                )
                if cut:
                    said = (
                        f"a run whose stacks were deeper than perf's stack dump of {info['stack_dump']} bytes "
                        f"({info['truncated']} samples cut before measured_region): left out, the next ones copy "
                        f"{settings.stack_dump} bytes a sample"
                    )
                elif empty:
                    said = "a run without samples of the operation (a loaded machine?): left out, the next one longer"
                else:
                    said = (
                        f"run {len(profile.runs)}: {info['samples']} samples of the operation "
                        f"({profile.samples}/{settings.effective_samples})"
                    )
                on_run(said)
            if error:
                outcome.error = error
                break
            if empty_runs_in_a_row == EMPTY_RUNS_BEFORE_GIVING_UP:
                outcome.error = (
                    f"the sampler collected no samples of the operation in {empty_runs_in_a_row} runs "
                    f"({sampled_seconds:.2g} s sampled)"
                )
                break
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        for unused in [ahead, *following]:
            if unused is not None:
                unused.cancel()
    if truncated:
        outcome.notes.append(
            f"{truncated} samples had stacks deeper than perf's stack dump, cut before measured_region: left out "
            f"(a run with more than {TRUNCATED_SHARE:.0%} of them was made again); the last runs copied "
            f"{settings.stack_dump} bytes a sample"
        )
    profile.metadata.update(
        _sampler_metadata(sampler, reason, settings, profile.metadata.get("run_info", [])),
        runs=len(profile.runs),
        samples=profile.samples,
        elapsed=time.monotonic() - started,
    )
    if settings.lines and profile.runs:  # the heat map's source, read now: later edits cannot shift it
        profile.metadata["sources"] = read_sources(profile, roots)
    if sampler == INPROCESS and settings.native:
        outcome.notes.append("native frames were requested but the in-process sampler sees Python frames only")
    return outcome


def stack_dump_after(info: dict[str, Any]) -> int:
    """The stack dump of the perf runs after the run of ``info`` (its run_info): StacksTooDeep when it did not fit."""
    return next_stack_dump(info["stack_dump"], info["truncated"], info["samples"] + info["outside_operation"])


def _first_run_seconds(settings: ProfileSettings, rate: int, achieved_rate: float | None) -> float:
    planned = settings.effective_samples / (settings.effective_runs * rate)
    if not achieved_rate:
        return planned * RUN_MARGIN
    return _next_run_seconds(planned, achieved_rate, rate, settings.effective_samples, settings.effective_runs)


def _following_seconds(
    profile: Profile,
    sampled_seconds: float,
    run_seconds: float,
    settings: ProfileSettings,
    rate: int,
    achieved_rate: float | None,
    runs: int | None,
) -> float | None:
    """The duration of the run after the one about to be made (of ``run_seconds``), or None if the
    samples expected by then leave none to make: that run counted at the samples per second so far."""
    per_second = profile.samples / sampled_seconds if sampled_seconds else achieved_rate or rate
    expected = round(profile.samples + per_second * run_seconds)  # (samples are whole)
    made = len(profile.runs) + 1
    more = made < runs if runs is not None else expected < settings.effective_samples or made < settings.effective_runs
    if not more:
        return None
    planned = settings.effective_samples / (settings.effective_runs * rate)
    left = int(settings.effective_samples - expected)
    return _next_run_seconds(planned, per_second, rate, left, settings.effective_runs - made)


def _start_ahead(
    into: list[StartedRun],
    file: str,
    case: str,
    contender: str,
    settings: ProfileSettings,
    sampler: str,
    seconds: float,
) -> None:
    """Start a run's worker ahead of its turn, into the list the session takes it from."""
    into.append(_started(file, case, contender, settings, sampler, seconds))


def _next_run_seconds(planned: float, achieved_rate: float, rate: int, samples_left: int, runs_left: int) -> float:
    """The next run's duration, from the samples per second the runs so far achieved.

    A loaded machine gives fewer samples per second than the rate (CPU-time samples of a process
    waiting for a CPU), so later runs are lengthened, within [planned / 2, 4 x planned]. Each run
    aims RUN_MARGIN above its share, the last LAST_RUN_MARGIN: runs that end a few samples short of
    the budget cost a whole run more.
    """
    per_second = max(achieved_rate, rate / 20)
    margin = LAST_RUN_MARGIN if runs_left <= 1 else RUN_MARGIN
    wanted = max(samples_left, 0) / max(runs_left, 1) / per_second * margin
    return min(4 * planned, max(planned / 2, wanted))


def _choose_sampler(settings: ProfileSettings) -> tuple[str | None, str | None]:
    """(sampler, why it is not the default); (None, error) when the requested one is unavailable."""
    if settings.sampler == INPROCESS:
        return INPROCESS, None
    if settings.sampler == PERF or (settings.sampler == AUTO and settings.native):
        problem = perf_problem(settings)
        if problem is None:
            return PERF, None
        if settings.sampler == PERF:
            return None, problem
    if find_py_spy() is None:
        missing = "py-spy was not found (pip install py-spy, or point PERFLAB_PY_SPY at it)"
        return (None, missing) if settings.sampler == PY_SPY else (INPROCESS, missing)
    return PY_SPY, None


def _one_run(
    file: str,
    case: str,
    contender: str,
    settings: ProfileSettings,
    sampler: str,
    rate: int,
    seconds: float,
    project: str,
    ahead: StartedRun | None = None,
    ended: Callable[[], None] | None = None,
) -> tuple[Counter[Stack] | None, dict[str, Any], str | None, list[tuple[str, str]]]:
    """(stacks of the operation, facts about the run, error, the roots its paths were shortened with)
    from one profiling worker (``ahead``: one started ahead for this run, else a new one); ``ended``
    is called once the worker has run and exited, before perf's recording is read. A worker stopped
    by the budget is named in the error, as timing names it: in its set-up, or in its run once that
    outlasts its fixed duration (a call that hangs; py-spy keeps what it sampled until then)."""
    clock = [time.monotonic()]  # when it began, was ready, had exited, was read
    started = ahead or _started(file, case, contender, settings, sampler, seconds)
    worker, perf = started.worker, started.perf
    recording = None
    raw: Counter[Stack] | None = None
    errors, profiled, finished = 0, False, False
    try:
        ready = worker.wait_for("ready")
        if ready is None and perf is not None and not worker.outcome.events:  # perf record did not start it
            raise SamplerUnavailable(f"perf record cannot sample here: {worker.outcome.error}")
        if ready is None:
            return None, {}, stopped_because(worker.outcome, case, contender), []
        clock.append(time.monotonic())
        target_cpu, sampler_cpu = sampling_cpus(_nonblocking(settings, sampler))
        if target_cpu is not None:
            with contextlib.suppress(OSError):  # the worker is gone: its outcome says why
                os.sched_setaffinity(ready["pid"], {target_cpu})
        if sampler == PY_SPY:
            spy = PySpyRecording(
                _py_spy(),
                ready["pid"],
                rate,
                settings.native,
                settings.mode,
                nonblocking=not settings.blocking,
                cpu=sampler_cpu,
                lines=settings.lines,
            )
            spy.wait_until_sampling()  # raises SamplerUnavailable (and cleans up) if it cannot attach
            recording = spy
        elif perf is not None:
            perf.enable(ready["pid"], sampler_cpu)
        worker.request_event("profile")
        profiled = True  # also after a crash: perf keeps what it sampled until then, as py-spy does
        if perf is not None and worker.outcome.of("profile"):  # alive: its way out is not the operation
            perf.disable()
        if recording is not None:  # also after a crash: py-spy keeps what it sampled until then
            spy, recording = recording, None
            raw, errors = spy.stop()
        elif perf is None:
            reply = worker.outcome.of("profile")
            sampled = reply[-1]["stacks"] if reply else None  # the in-process sampler's
            raw = Counter({tuple(frames): count for frames, count in sampled}) if sampled is not None else None
        finished = True
    finally:
        if recording is not None:  # interrupted: stop py-spy, its stacks are not needed
            with contextlib.suppress(SamplerUnavailable):
                recording.stop()
        outcome = worker.close()  # a perf worker's perf record ends with it, writing its data
        clock.append(time.monotonic())
        try:
            if ended is not None and finished and outcome.error is None:
                ended()
            if perf is not None and profiled:
                raw, errors = perf.stacks()
        finally:
            if perf is not None:
                perf.cleanup()
    if raw is None:
        return None, {}, stopped_because(outcome, case, contender), []
    trimmed = trim_to_operation(raw)
    roots = path_roots(project, ready["paths"])
    stacks = normalize_stacks(trimmed.stacks, roots)
    values = [v for event in outcome.of("profile") for v in event["values"]]
    clock.append(time.monotonic())
    info = {
        "samples": sum(stacks.values()),
        "seconds": seconds,
        "outside_operation": trimmed.outside,
        "sampler_errors": errors,
        # perf's bytes of stack a sample, and the samples whose stack did not fit (in outside_operation when cut above measured_region)
        **({"stack_dump": perf.stack_dump, "truncated": perf.truncated} if perf is not None else {}),
        "loops": ready["loops"],
        "time_per_call": sorted(values)[len(values) // 2] if values else None,
        # wall seconds waiting for the worker to be ready (none when started ahead and ready), from then until
        # it exited (perf wrote its recording), and reading the samples (perf inject and perf script)
        "wall": dict(zip(("start", "sampling", "reading"), (round(b - a, 3) for a, b in itertools.pairwise(clock)))),
    }
    return stacks, info, stopped_because(outcome, case, contender), roots


def stopped_because(outcome: JobOutcome, case: str, contender: str) -> str | None:
    """The error a profiling worker ended with; one stopped by the budget is named, with what to do."""
    if not outcome.over_budget:
        return outcome.error
    return f"{case}/{contender}: {outcome.error}; raise --max-time if its calls take this long, else a call hangs"


def _start_worker(
    file: str,
    case: str,
    contender: str,
    settings: ProfileSettings,
    sampler: str,
    seconds: float,
    perf: PerfRecording | None = None,
) -> Worker:
    """A profile-mode worker for one run of ``seconds``, setting up on the sampler's CPU when pinned."""
    job = profile_job(
        file,
        contender,
        settings.sys_path,
        case,
        settings.value_time,
        seconds,
        InProcessSampling(rate=settings.rate_for(sampler), mode=settings.mode, lines=settings.lines)
        if sampler == INPROCESS
        else None,
        sampling_cpus(_nonblocking(settings, sampler))[1],
    )
    budget = Budget.starting_now(settings.budget) if settings.budget is not None else None  # for its set-up
    if perf is None:
        return WorkerProcess(job, settings.timeout + seconds, settings.python, None, budget)
    env = _trampoline(settings).env
    return WorkerProcess(job, settings.timeout + seconds, settings.python, None, budget, env, perf.prefix)


def _nonblocking(settings: ProfileSettings, sampler: str) -> bool:
    """Whether the sampler never stops the target: then it runs on another CPU than the pinned target's."""
    return sampler == PERF or (sampler == PY_SPY and not settings.blocking and not settings.native)


def perf_problem(settings: ProfileSettings) -> str | None:
    """Why perf cannot take the profile ``settings`` ask for (one line saying what to do), or None."""
    if settings.mode == "wall":
        return "--sampler perf samples CPU time only: drop --mode wall, or use --sampler py-spy"
    if settings.lines:
        return "--sampler perf labels Python frames by function: drop --lines, or use --sampler py-spy"
    return perf_unavailable(settings.python)


def _trampoline(settings: ProfileSettings) -> Trampoline:
    """The trampoline of the interpreter perf_problem accepted."""
    trampoline = interpreter_trampoline(settings.python)
    if isinstance(trampoline, str):
        raise SamplerUnavailable(trampoline)
    return trampoline


def with_spare_cpu_known(settings: ProfileSettings) -> ProfileSettings:
    """``settings`` with ``spare_cpu`` looked at (0.2 s) when the default rate depends on it: once
    per session (perflab.profile.pairing looks before its rounds), so that all its runs share one rate."""
    if settings.spare_cpu is not None or not settings.wants_spare_cpu:
        return settings
    return replace(settings, spare_cpu=sampling_cpus(True)[0] is not None and has_spare_cpu())


def sampling_cpus(nonblocking: bool) -> tuple[int | None, int | None]:
    """(the CPU the profiled worker is pinned to, the CPU py-spy runs on), or (None, None): not pinned.

    A sampler that never stops the target (py-spy --nonblocking) takes no CPU time from it when it
    runs on another CPU; the last CPU is the target's, as the parent and the system favour the first.
    A blocking sampler is not pinned: the target waits while it unwinds, so it must get whichever
    CPU is free first (pinned to a busy CPU, it stopped the target twice as long:
    benchmarks/profile_distortion.py --pin with native frames under load).
    """
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return (cpus[-1], cpus[0]) if nonblocking and len(cpus) >= 2 else (None, None)


def _py_spy() -> str:
    """py-spy's path, once _choose_sampler has chosen it (it is chosen only where it is found)."""
    found = find_py_spy()
    if found is None:
        raise SamplerUnavailable("py-spy is not installed")
    return found


def _sampler_metadata(
    sampler: str, reason: str | None, settings: ProfileSettings, run_info: list[dict[str, Any]]
) -> dict[str, Any]:
    if sampler == PERF:
        dumps = sorted({info["stack_dump"] for info in run_info}) or [settings.stack_dump or STACK_DUMP]
        return {
            "sampler": "perf",
            "sampler_version": f"{perf_version(check_perf())} --call-graph "
            f"{' then '.join(map(call_graph, dumps))}, {_trampoline(settings).description}",
            "nonblocking": False,  # py-spy's option; perf never stops the target
            "native": True,
            "sampler_reason": None,
        }
    if sampler == PY_SPY:
        return {
            "sampler": "py-spy",
            "sampler_version": py_spy_version(_py_spy()),
            "nonblocking": not settings.blocking and not settings.native,
            "sampler_reason": reason,  # why not perf, when auto fell back from it
        }
    return {"sampler": "inprocess", "sampler_version": INPROCESS_DESCRIPTION, "native": False, "sampler_reason": reason}
