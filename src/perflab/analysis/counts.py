"""Instruction counts (and memory figures) as numbers: a cell's figure per call with its spread over
processes, the smallest step a history of counts can show, and where counts and times disagree.

Counting (valgrind) is perflab.metrics.instructions; this module only reads the counts, so that
the gate and histories can use them without the machinery that measures them.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from perflab.results.quantities import Interval, ratio_of_ranges

# Disagreement threshold between the instruction ratio and the time ratio of two contenders.
DISAGREEMENT_FACTOR = 2.0
# Smallest change point in a history of instruction counts (perflab history --metric instructions).
# Counts of the same code repeat exactly here (0.000% over 5 runs; 0.04% with address-space
# randomization on: benchmarks/instruction_stability.py), so sub-percent steps are real; the 3%
# floor for times (the machine's drift) would hide them.
MIN_HISTORY_STEP = 0.002
# The two memory figures per cell (perflab.metrics.memory), by name in the memory gate and history.
ALLOCATED, PEAK = "allocated/call", "peak"


_Spread = TypeVar("_Spread", bound="ProcessSpread")


@dataclass(frozen=True)
class ProcessSpread:
    """A per-call figure of a cell that repeats (almost) exactly from process to process: the
    median over its processes, and their range, which is then the whole uncertainty: two cells
    differ by more than their spreads only if the code (or what it runs on) changed."""

    value: float  # median over the processes
    low: float  # the smallest process's figure
    high: float  # the largest
    processes: tuple[float, ...]  # one figure per separate process
    loops: int  # calls measured in each process

    @classmethod
    def of(cls: type[_Spread], processes: Sequence[float], loops: int) -> _Spread:
        return cls(statistics.median(processes), min(processes), max(processes), tuple(processes), loops)

    @property
    def spread(self) -> float:
        """(largest - smallest) / median over the processes: 0.0001 is 0.01%."""
        return (self.high - self.low) / self.value if self.value else 0.0

    def ratio_to(self, other: ProcessSpread) -> Interval:
        """self / other: the median ratio, and the smallest and largest the two spreads allow."""
        return ratio_of_ranges(self.processes, other.processes)


class InstructionsEstimate(ProcessSpread):
    """A cell's instructions per call over its separate valgrind processes. Counts are deterministic,
    so the range is the whole uncertainty."""


@dataclass
class Disagreement:
    """A contender whose instruction ratio and time ratio to the reference differ by > 2x."""

    case: str
    contender: str
    instruction_ratio: float  # contender's instructions per call / the reference's
    time_ratio: float  # contender's time per call / the reference's (paired estimate)

    @property
    def factor(self) -> float:
        return max(self.instruction_ratio / self.time_ratio, self.time_ratio / self.instruction_ratio)
