"""What a timing run is asked for: its precision target, budget, limits and verdict thresholds.

Kept apart from the runner so that the command line can build settings without importing the
statistics (numpy, scipy) it does not need before measuring.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass
class Settings:
    precision: float = 0.01  # target 95% CI half-width, relative
    # "answered": a case stops once its ratios are decided or precise (perflab.measure.stopping),
    # with anytime-valid intervals; "precise": only at ``precision`` (the user asked for one),
    # with fixed-sample t intervals.
    stop_when: str = "answered"
    max_time: float = 60.0  # seconds for the timing phase of the whole run
    timeout: float = 60.0  # seconds one worker process may take
    # Many short values per process: adjacent values of two contenders are ~5 ms apart, so they
    # see the same machine state (the reasoning, and exploratory runs: docs/statistics.md). The
    # shortest a value lasts: longer where the longest call of any side, or a length check, needs
    # it (perflab.measure.value_length).
    value_time: float = 0.005  # seconds one value should last at least (loops are calibrated to it)
    # What a value measures: "wall" (perf_counter) or "cpu", the timed thread's CPU time
    # (time.thread_time: immune to other processes, blind to waiting, sleeping and other threads).
    clock: str = "wall"
    warmups: int = 2
    values: int = 20  # values per process
    min_rounds: int = 5
    max_rounds: int | None = None  # rounds at most, precise or not (None: until precise or out of time)
    # Verdicts need an FDR-adjusted p <= 0.01: at 0.05, one A/A comparison in twenty would be
    # called faster or slower, and people act on those calls (intervals stay 95%).
    alpha: float = 0.01
    min_effect: float = 0.01  # smaller differences are never called faster/slower
    # A gate's question (``check --against``): is the time ratio above 1 + this? Answered, a case
    # may stop (perflab.measure.stopping) as soon as its interval lies wholly on one side of it.
    regression_threshold: float | None = None
    # Valgrind processes per cell for --metric instructions and cache (None: their REPEATS); the
    # hidden --debug-counts, for perflab's own tests (each such process costs seconds of CPU).
    counted_processes: int | None = None
    python: str = sys.executable

    @property
    def anytime(self) -> bool:
        """Whether intervals must hold at any stopping time: the rule may stop on what it sees,
        not at a round count fixed before (``min_rounds == max_rounds``)."""
        return self.stop_when == "answered" and self.max_rounds != self.min_rounds
