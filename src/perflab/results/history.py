"""A benchmark's history: the stored runs of one (case, contender) that can be compared.

Timings from another machine or another interpreter build differ for reasons that are not the
code, so a series holds only runs with the same machine and interpreter fingerprints as the most
recent run (unless told otherwise); the others are counted, not mixed in. perflab check's runs are
counted and left out too (``store.CHECK_SOURCE``). Runs are in commit order (``store.history_order``).

Where a series steps, the profiles stored with the runs on either side of the step (``perflab
run --profile``) are diffed, to show where in the call tree the time went.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

from perflab.analysis.changepoints import MIN_STEP, Changes, Point, Step
from perflab.analysis.counts import MIN_HISTORY_STEP
from perflab.metrics import INSTRUCTIONS, MEMORY, TIME
from perflab.profile.diff import ProfileDiff, diff_profiles
from perflab.profile.model import IncomparableProfiles
from perflab.results.quantities import Interval
from perflab.results.schema import ALLOCATED_METRIC
from perflab.results.store import CHECK_SOURCE, Measurement, Store, StoredRun

# The store's metric_values of each metric a history shows besides time, and what they are.
STORED = {INSTRUCTIONS: (INSTRUCTIONS, "instruction counts"), MEMORY: (ALLOCATED_METRIC, "bytes allocated per call")}


class HistoryError(Exception):
    """Nothing comparable to show; the message is one line saying what to do."""


@dataclass
class Series:
    benchmark: str
    case: str
    contender: str
    measurements: list[Measurement]
    hidden: int = 0  # runs left out: other machine or interpreter
    metric: str = TIME  # what the points are: time per call, INSTRUCTIONS or MEMORY (bytes allocated) per call
    checks: int = 0  # runs of perflab check left out (store.CHECK_SOURCE)

    @property
    def min_step(self) -> float:
        """Smallest change point reported: the machine's drift for times; far less for
        instruction counts and bytes allocated, which repeat (almost) exactly."""
        return MIN_STEP if self.metric == TIME else MIN_HISTORY_STEP

    @property
    def points(self) -> list[Point]:
        return [Point(m.run.label, m.median, m.low, m.high) for m in self.measurements]

    @property
    def dates(self) -> list[str]:
        return [
            time.strftime("%Y-%m-%d %H:%M", time.localtime(m.run.commit_time or m.run.created))
            for m in self.measurements
        ]

    @property
    def description(self) -> str:
        last = self.measurements[-1].run
        # Imported native results (Google Benchmark, criterion.rs) have no Python, maybe no CPU model.
        machine = f"{last.cpu_model or 'unknown CPU'} (machine {(last.machine_id or '?')[:8]})"
        return ", ".join([machine] + ([f"Python {last.python_version}"] if last.python_version else []))


def series(
    store: Store,
    benchmark: str,
    case: str | None = None,
    contender: str | None = None,
    any_machine: bool = False,
    any_python: bool = False,
    metric: str = TIME,
    machine: str | None = None,
) -> list[Series]:
    """One series per case (or just ``case``), of ``contender`` (default: the reference): its time
    per call, or with ``metric="instructions"`` (``"memory"``) its instructions (bytes allocated) per call
    in the runs that measured them.
    The runs are those of one machine: ``machine`` (a fingerprint, a prefix of one, or a host name),
    else the machine of the latest run."""
    runs = store.runs(benchmark)
    if not runs:
        stored = ", ".join(store.benchmarks()) or "none"
        raise HistoryError(
            f"{store.path}: no stored runs of benchmark {benchmark!r} (stored: {stored}); "
            "run `perflab run` first or pass --db"
        )
    # the reference of the latest run that is a point of a history: a check run's is the contender it
    # measured last, any of them
    histories = [run for run in runs if run.source != CHECK_SOURCE] or runs
    contender = contender or store.result(histories[-1].id).reference
    measured = Store.measurements if metric == TIME else functools.partial(metric_measurements, metric=metric)
    every = measured(store, benchmark, case, contender)
    measurements = [m for m in every if m.run.source != CHECK_SOURCE]
    cell = f"{benchmark}{f' case {case!r}' if case else ''}, contender {contender!r}"
    if every and not measurements:
        raise HistoryError(
            f"{store.path}: the only stored runs of {cell} "
            "are perflab check's, which are not histories; `perflab run` at each commit stores one"
        )
    if not measurements:
        cells = sorted({(m.case, m.contender) for m in measured(store, benchmark)})
        known = ", ".join(f"{c}/{k}" for c, k in cells) or f"none: `perflab run --metric {metric}` measures them"
        what = STORED[metric][1] if metric in STORED else "measurements"
        raise HistoryError(f"{store.path}: no {what} of {cell} (stored: {known})")
    if machine is not None:
        measurements = [m for m in measurements if m.run.machine_id == chosen_machine(store, machine)]
        if not measurements:
            raise HistoryError(f"{store.path}: no runs of {benchmark} on machine {machine!r}")
    latest = measurements[-1].run
    comparable = [
        m
        for m in measurements
        if (any_machine or m.run.machine_id == latest.machine_id)
        and (any_python or m.run.python_id == latest.python_id)
    ]
    cases = list(dict.fromkeys(m.case for m in comparable))
    return [
        Series(
            benchmark,
            name,
            contender,
            [m for m in comparable if m.case == name],
            hidden=sum(1 for m in measurements if m.case == name) - sum(1 for m in comparable if m.case == name),
            metric=metric,
            checks=sum(1 for m in every if m.case == name and m.run.source == CHECK_SOURCE),
        )
        for name in cases
    ]


def chosen_machine(store: Store, wanted: str) -> str:
    """The fingerprint of the one stored machine that ``wanted`` names: its fingerprint or a prefix
    of it, or the host name it was last seen on."""
    machines = store.machines()
    found = {m.machine_id for m in machines if m.machine_id.startswith(wanted) or m.hostname == wanted}
    if len(found) == 1:
        return found.pop()
    known = "; ".join(
        f"{m.machine_id} ({m.hostname or '?'}: {m.cpu_model or '?'}, {m.cpu_count or '?'} cores)" for m in machines
    )
    problem = "names several machines" if found else "names no stored machine"
    raise HistoryError(f"{store.path}: --machine {wanted!r} {problem}; stored machines: {known or 'none'}")


def metric_measurements(
    store: Store, benchmark: str, case: str | None = None, contender: str | None = None, metric: str = INSTRUCTIONS
) -> list[Measurement]:
    """Instructions (or bytes allocated) per call in every stored run of ``benchmark`` that measured
    them, in history order, as measurements: ``median`` is the median over the processes, ``low`` and
    ``high`` the smallest and largest process (from the store's indexed metric values)."""
    return store.metric_measurements(benchmark, STORED[metric][0], case, contender)


@dataclass
class StepProfile:
    """The differential profile of the runs around a change point, or why there is none."""

    before: StoredRun | None  # the runs whose profiles were diffed
    after: StoredRun | None
    diff: ProfileDiff | None = None
    note: str = ""


def step_profiles(store: Store, series: Series, changes: Changes) -> dict[int, StepProfile]:
    """For each step (by its index in the series): the profiles of the closest runs on each side of
    it that have one (not beyond the neighbouring steps), diffed."""
    profiled = store.profiled_runs(series.benchmark, series.case, series.contender)
    runs = [m.run for m in series.measurements]
    starts = [0, *(step.index for step in changes.steps), len(runs)]
    found = {}
    for number, step in enumerate(changes.steps, start=1):
        last_old = _last_old(runs, step, starts[number - 1])
        before = next((i for i in range(last_old, starts[number - 1] - 1, -1) if runs[i].id in profiled), None)
        after = next((i for i in range(step.index, starts[number + 1]) if runs[i].id in profiled), None)
        found[step.index] = _diff_around(store, series, step, before, after)
    return found


def _last_old(runs: list[StoredRun], step: Step, floor: int) -> int:
    """Index of the last run at the old level (before a transient, when one sits at the step)."""
    return next((i for i in range(step.index - 1, floor - 1, -1) if runs[i].label == step.before), step.index - 1)


def _diff_around(store: Store, series: Series, step: Step, before: int | None, after: int | None) -> StepProfile:
    if before is None or after is None:
        missing = " and ".join(label for label, index in ((step.before, before), (step.after, after)) if index is None)
        return StepProfile(
            None,
            None,
            note=f"no stored profile at {missing}: `perflab run --profile` at those "
            "commits attaches the differential profile of this step",
        )
    old, new = series.measurements[before], series.measurements[after]
    profiles = [store.profile(m.run.id, series.case, series.contender) for m in (old, new)]
    if profiles[0] is None or profiles[1] is None:  # deleted since the series was read
        return StepProfile(old.run, new.run, note="a profile of this step is no longer stored")
    # Scaled as compare scales its differential profiles: the old run's time per call and the
    # step's ratio (more precise than any two runs) give each side's time; the profiles split it.
    base, ratio = old.median, step.ratio
    timed = (base, base * ratio.value)
    difference = Interval(base * (ratio.value - 1), base * (ratio.low - 1), base * (ratio.high - 1))
    try:
        diff = diff_profiles(
            profiles[0], profiles[1], (old.run.label, new.run.label), timed=timed, timed_difference=difference
        )
    except (IncomparableProfiles, ValueError) as error:
        return StepProfile(
            old.run,
            new.run,
            note=f"profiles of {old.run.label} and {new.run.label} not diffed: {str(error).split('; refusing')[0]}",
        )
    return StepProfile(old.run, new.run, diff)
