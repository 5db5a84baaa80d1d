"""Every series in the store, with its change points: what the web view's pages are made of.

A series is one (benchmark, case, contender) measured on one machine with one interpreter (the
store's fingerprints): timings from elsewhere are another series, never mixed in, and so are
perflab check's runs (counted, left out). Its runs are in commit order and its change points come
from ``perflab.analysis.changepoints``, exactly as ``perflab history`` orders and finds them.

Detecting change points costs tens of milliseconds per thousand runs, so a ``Catalog`` keeps each
series' result until the series itself changes (a new run of it); the store is re-read only when
its ``version`` moved, so an overview of hundreds of series answers from memory.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from perflab.analysis.changepoints import MIN_STEP, Changes, Point, Step, detect
from perflab.results.store import CHECK_SOURCE, ChangeMark, Store

SPARKLINE_POINTS = 60  # the last runs drawn in an overview row


@dataclass(frozen=True)
class SeriesKey:
    benchmark: str
    case: str
    contender: str
    machine_id: str
    python_id: str

    @property
    def id(self) -> str:
        """A stable name for URLs and file names (user strings never reach a path)."""
        text = json.dumps([self.benchmark, self.case, self.contender, self.machine_id, self.python_id])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RunPoint:
    """One run's median time per call in a series, with its 95% interval."""

    run_id: int
    label: str  # short commit ('+': uncommitted changes), or 'run N' outside git
    commit: str | None
    subject: str | None
    when: float  # commit time (unix), else when the run was saved
    median: float
    low: float | None
    high: float | None
    struck: str | None = None  # "invalid" or "repeat-only": the contender's speed does not count in this run


@dataclass(frozen=True)
class ChangePoint:
    """A step of a series, with the runs on either side and a person's mark, if any."""

    step: Step
    before: RunPoint  # the last run at the old level
    after: RunPoint  # the first run at the new level
    mark: ChangeMark | None

    @property
    def slower(self) -> bool:
        return self.step.ratio.low > 1

    @property
    def open_regression(self) -> bool:
        """Slower beyond its interval and nobody acknowledged or ignored it yet."""
        return self.slower and self.mark is None


@dataclass
class Series:
    key: SeriesKey
    machine: str  # CPU model of the series' machine
    python: str  # interpreter version
    points: list[RunPoint]
    changes: list[ChangePoint] = field(default_factory=list)
    no_change: str = ""  # what to say when ``changes`` is empty (changepoints.Changes.none_found)
    checks: int = 0  # runs of perflab check left out (store.CHECK_SOURCE)

    @property
    def latest(self) -> RunPoint:
        return self.points[-1]

    @property
    def struck(self) -> list[RunPoint]:
        """The runs in which this contender's speed does not count (not equivalent, repeat-only):
        its times are real, but it is no alternative to the reference there."""
        return [p for p in self.points if p.struck]

    @property
    def latest_change(self) -> ChangePoint | None:
        return self.changes[-1] if self.changes else None

    @property
    def regressed(self) -> bool:
        """Its latest change point is an open regression (the overview's "regressions only")."""
        return self.latest_change is not None and self.latest_change.open_regression


class Catalog:
    """The series of one store, recomputed only where the store changed. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: tuple | None = None
        self._series: list[Series] = []
        self._by_id: dict[str, Series] = {}
        self._changes: dict[SeriesKey, tuple[tuple, Changes]] = {}

    def series(self, store: Store) -> list[Series]:
        """Every series, by benchmark, case, contender, machine and interpreter."""
        with self._lock:
            version = store.version()
            if version != self._version:
                self._refresh(store)
                self._version = version
            return self._series

    def get(self, store: Store, series_id: str) -> Series | None:
        self.series(store)
        return self._by_id.get(series_id)

    def _refresh(self, store: Store) -> None:
        grouped: dict[SeriesKey, Series] = {}
        checks: Counter[SeriesKey] = Counter()
        for (
            benchmark,
            case,
            contender,
            machine_id,
            python_id,
            run_id,
            commit,
            dirty,
            commit_time,
            created,
            median,
            low,
            high,
            cpu_model,
            python_version,
            subject,
            source,
            struck,
        ) in store.all_measurements():
            key = SeriesKey(benchmark, case, contender, machine_id, python_id)
            if source == CHECK_SOURCE:
                checks[key] += 1
                continue
            series = grouped.get(key)
            if series is None:
                series = grouped[key] = Series(key, cpu_model or "unknown CPU", python_version or "?", [])
            label = f"{commit[:8]}{'+' if dirty else ''}" if commit else f"run {run_id}"
            series.points.append(
                RunPoint(run_id, label, commit, subject, commit_time or created, median, low, high, struck)
            )
        marks = {
            (m.benchmark, m.case, m.contender, m.machine_id, m.python_id, m.after): m for m in store.change_marks()
        }
        changes = {}
        for key, series in grouped.items():
            series.checks = checks[key]
            signature = (len(series.points), series.points[0].run_id, series.points[-1].run_id)
            cached = self._changes.get(key)
            found = (
                cached[1]
                if cached and cached[0] == signature
                else detect([Point(p.label, p.median, p.low, p.high) for p in series.points], min_step=MIN_STEP)
            )
            changes[key] = (signature, found)
            series.changes = [_change_point(series, step, marks) for step in found.steps]
            series.no_change = found.none_found()
        self._changes = changes
        self._series = sorted(
            grouped.values(),
            key=lambda s: (s.key.benchmark, s.key.case, s.key.contender, s.machine, s.python, s.key.machine_id),
        )
        self._by_id = {s.key.id: s for s in self._series}


def _change_point(series: Series, step: Step, marks: dict[tuple, ChangeMark]) -> ChangePoint:
    before = next((i for i in range(step.index - 1, -1, -1) if series.points[i].label == step.before), step.index - 1)
    key = series.key
    mark = marks.get((key.benchmark, key.case, key.contender, key.machine_id, key.python_id, step.after))
    return ChangePoint(step, series.points[before], series.points[step.index], mark)


@dataclass(frozen=True)
class Filters:
    """The overview's state, as its URL carries it."""

    query: str = ""
    regressions_only: bool = False
    machine: str = ""  # a machine fingerprint, or '' for every machine
    python: str = ""  # an interpreter fingerprint, or ''

    def keep(self, series: Series) -> bool:
        key = series.key
        words = self.query.lower().split()
        text = f"{key.benchmark} {key.case} {key.contender}".lower()
        return (
            all(word in text for word in words)
            and (not self.regressions_only or series.regressed)
            and self.machine in ("", key.machine_id)
            and self.python in ("", key.python_id)
        )


def all_changes(series: list[Series]) -> list[tuple[Series, ChangePoint]]:
    """Every change point of every series, newest first (by the time of its first new run)."""
    found = [(s, change) for s in series for change in s.changes]
    return sorted(found, key=lambda item: item[1].after.when, reverse=True)


def iso_time(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
