"""How many values to take in-process, and what they say: calibration, stopping rule, estimates.

The pytest plugin times code inside the pytest process, so there is one process and the cluster
bootstrap of perflab.analysis.estimates (whose unit is the worker process) would have a single cluster. Instead,
the values are cut into ``BLOCKS`` contiguous blocks, and a block plays the part of a process:
drift of the machine within the test (a neighbour starting, the CPU clocking down) moves whole
blocks and widens the interval. What in-process timing cannot see is the variation between
processes (memory layout, hash seed); the report says so, and ``perflab run`` measures it.

A ``Sampler`` is a small state machine driven by whoever calls the code (a plain loop, or an
``await`` loop for coroutine functions), so the same rule serves both:

    sampler = Sampler(settings)
    while (loops := sampler.next_loops()) is not None:
        sampler.add(time_of(loops))
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perflab.analysis import estimates
from perflab.bench.worker.region import calibration_steps

BLOCKS = 10  # contiguous blocks of values: the units of the in-process intervals
CHECK_EVERY = BLOCKS  # the stopping rule looks at the interval once per this many new values


@dataclass(frozen=True)
class SamplingSettings:
    """The stopping rule of one benchmark, fixed before any value is seen."""

    max_time: float = 1.0  # seconds of values per benchmark (pytest-benchmark's --benchmark-max-time)
    min_rounds: int = 5  # values at least (and never fewer than 2), whatever the clock says
    precision: float = 0.01  # stop early once the median's 95% CI half-width is within this
    value_time: float = 0.005  # seconds one value should last (loops are calibrated to it)
    warmups: int = 2  # values thrown away after calibration
    timer: Callable[[], float] = time.perf_counter
    disable_gc: bool = False

    def __post_init__(self) -> None:
        for name in ("max_time", "precision", "value_time"):
            value = getattr(self, name)
            least = 0 if name == "max_time" else math.ulp(0)  # max_time=0: min_rounds values only
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < least
            ):
                raise ValueError(f"{name}={value!r}: must be a {'non-negative' if least == 0 else 'positive'} number")
        for name in ("min_rounds", "warmups"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < (1 if name == "min_rounds" else 0):
                raise ValueError(
                    f"{name}={value!r}: must be a whole number{' of at least 1' if name == 'min_rounds' else ' >= 0'}"
                )


def blocks_of(values: list[float]) -> list[list[float]]:
    """``values`` in up to BLOCKS contiguous, nearly equal blocks (fewer when there are fewer values)."""
    return (
        [
            list(block)
            for block in np.array_split(np.asarray(values, dtype=float), min(BLOCKS, len(values)))
            if len(block)
        ]
        if values
        else []
    )


def estimate(values: list[float]) -> estimates.CellEstimates:
    """Median and mean with 95% intervals, blocks of consecutive values as the independent units."""
    return estimates.estimate_cell(blocks_of(values))


class Sampler:
    """Decides how many calls each next value times, and when to stop (see the module docstring).

    Calibration (perflab.bench.worker.region's rule) comes first unless ``loops`` is given, then ``warmups``
    values that are kept apart, then values until ``rounds`` are taken (pedantic) or the stopping
    rule ends it: at least ``min_rounds`` values, then the median's interval within ``precision``,
    or ``max_time`` spent.
    """

    def __init__(
        self,
        settings: SamplingSettings,
        loops: int | None = None,
        rounds: int | None = None,
        warmups: int | None = None,
    ) -> None:
        self.settings = settings
        self.rounds = rounds
        self.loops = loops
        self.warmup_count = settings.warmups if warmups is None else warmups
        self.warmups: list[float] = []
        self.values: list[float] = []
        self.reached = math.inf  # the median's relative 95% half-width when last checked
        self._calibration = calibration_steps(settings.value_time) if loops is None else None
        self._pending = next(self._calibration) if self._calibration else loops
        self._started = time.monotonic()

    def next_loops(self) -> int | None:
        """Calls for the next timing, or None when sampling is over."""
        if self._calibration is not None or len(self.warmups) < self.warmup_count:
            return self._pending
        return None if self._finished() else self.loops

    def add(self, elapsed: float) -> None:
        """The seconds that the ``next_loops()`` calls took."""
        if self._calibration is not None:
            try:
                self._pending = self._calibration.send(elapsed)
            except StopIteration as done:
                self.loops = self._pending = done.value
                self._calibration = None
                self._started = time.monotonic()  # the budget is for values, not for calibrating
        else:
            assert self.loops is not None  # set once calibration is over
            (self.warmups if len(self.warmups) < self.warmup_count else self.values).append(elapsed / self.loops)

    def _finished(self) -> bool:
        n = len(self.values)
        if self.rounds is not None:
            return n >= self.rounds
        if n < max(self.settings.min_rounds, 2):
            return False
        if time.monotonic() - self._started >= self.settings.max_time:
            return True
        if n % CHECK_EVERY == 0 and n >= BLOCKS:
            self.reached = estimate(self.values).median.relative_half_width
            return self.reached <= self.settings.precision
        return False
