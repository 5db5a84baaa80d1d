"""A benchmark's history: the stored runs of one (case, contender) that can be compared.

Timings from another machine or another interpreter build differ for reasons that are not the
code, so a series holds only runs with the same machine and interpreter fingerprints as the most
recent run (unless told otherwise); the others are counted, not mixed in.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from perflab.changepoints import MIN_STEP, Point
from perflab.metrics import INSTRUCTIONS, TIME, instruction_counts
from perflab.metrics.instructions import MIN_HISTORY_STEP
from perflab.store import Measurement, Store


class HistoryError(Exception):
    """Nothing comparable to show; the message is one line saying what to do."""


@dataclass
class Series:
    benchmark: str
    case: str
    contender: str
    measurements: list[Measurement]
    hidden: int = 0           # runs left out: other machine or interpreter
    metric: str = TIME        # what the points are: time per call, or INSTRUCTIONS per call

    @property
    def min_step(self) -> float:
        """Smallest change point reported: the machine's drift for times; far less for
        instruction counts, which repeat exactly (``--metric instructions``)."""
        return MIN_HISTORY_STEP if self.metric == INSTRUCTIONS else MIN_STEP

    @property
    def points(self) -> list[Point]:
        return [Point(m.run.label, m.median, m.low, m.high) for m in self.measurements]

    @property
    def dates(self) -> list[str]:
        return [time.strftime("%Y-%m-%d %H:%M", time.localtime(m.run.commit_time or m.run.created))
                for m in self.measurements]

    @property
    def description(self) -> str:
        last = self.measurements[-1].run
        return f"{last.cpu_model}, Python {last.python_version}"


def series(store: Store, benchmark: str, case: str | None = None, contender: str | None = None,
           any_machine: bool = False, any_python: bool = False, metric: str = TIME) -> list[Series]:
    """One series per case (or just ``case``), of ``contender`` (default: the reference): its time
    per call, or with ``metric="instructions"`` its instructions per call in the runs that counted them."""
    runs = store.runs(benchmark)
    if not runs:
        stored = ", ".join(store.benchmarks()) or "none"
        raise HistoryError(f"{store.path}: no stored runs of benchmark {benchmark!r} (stored: {stored}); "
                           "run `perflab run` first or pass --db")
    contender = contender or store.result(runs[-1].id).reference
    measured = instruction_measurements if metric == INSTRUCTIONS else Store.measurements
    measurements = measured(store, benchmark, case, contender)
    if not measurements:
        cells = sorted({(m.case, m.contender) for m in measured(store, benchmark)})
        known = ", ".join(f"{c}/{k}" for c, k in cells) or "none: `perflab run --metric instructions` counts them"
        what = "instruction counts" if metric == INSTRUCTIONS else "measurements"
        raise HistoryError(f"{store.path}: no {what} of {benchmark} case {case or '*'!r}, contender "
                           f"{contender!r} (stored: {known})")
    latest = measurements[-1].run
    comparable = [m for m in measurements
                  if (any_machine or m.run.machine_id == latest.machine_id)
                  and (any_python or m.run.python_id == latest.python_id)]
    cases = list(dict.fromkeys(m.case for m in comparable))
    return [Series(benchmark, name, contender, [m for m in comparable if m.case == name],
                   hidden=sum(1 for m in measurements if m.case == name) - sum(1 for m in comparable if m.case == name),
                   metric=metric)
            for name in cases]


def instruction_measurements(store: Store, benchmark: str, case: str | None = None,
                             contender: str | None = None) -> list[Measurement]:
    """Instructions per call in every stored run of ``benchmark`` that counted them, in history
    order, as measurements: ``median`` is the median over the counted processes, ``low`` and
    ``high`` the smallest and largest process. (Read from each run's stored result: the store
    indexes times only.)"""
    found = []
    for run in store.runs(benchmark):
        for (name, who), count in instruction_counts(store.result(run.id)).items():
            if case in (None, name) and contender in (None, who):
                found.append(Measurement(run, name, who, count.value, count.low, count.high, len(count.processes)))
    return found
