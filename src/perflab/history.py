"""A benchmark's history: the stored runs of one (case, contender) that can be compared.

Timings from another machine or another interpreter build differ for reasons that are not the
code, so a series holds only runs with the same machine and interpreter fingerprints as the most
recent run (unless told otherwise); the others are counted, not mixed in.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from perflab.changepoints import Point
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
           any_machine: bool = False, any_python: bool = False) -> list[Series]:
    """One series per case (or just ``case``), of ``contender`` (default: the reference)."""
    runs = store.runs(benchmark)
    if not runs:
        stored = ", ".join(store.benchmarks()) or "none"
        raise HistoryError(f"{store.path}: no stored runs of benchmark {benchmark!r} (stored: {stored}); "
                           "run `perflab run` first or pass --db")
    contender = contender or store.result(runs[-1].id).reference
    measurements = store.measurements(benchmark, case, contender)
    if not measurements:
        cells = sorted({(m.case, m.contender) for m in store.measurements(benchmark)})
        known = ", ".join(f"{c}/{k}" for c, k in cells)
        raise HistoryError(f"{store.path}: no measurements of {benchmark} case {case or '*'!r}, contender "
                           f"{contender!r} (stored: {known})")
    latest = measurements[-1].run
    comparable = [m for m in measurements
                  if (any_machine or m.run.machine_id == latest.machine_id)
                  and (any_python or m.run.python_id == latest.python_id)]
    cases = list(dict.fromkeys(m.case for m in comparable))
    return [Series(benchmark, name, contender, [m for m in comparable if m.case == name],
                   hidden=sum(1 for m in measurements if m.case == name) - sum(1 for m in comparable if m.case == name))
            for name in cases]
