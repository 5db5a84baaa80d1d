"""Instruction counts as numbers: a cell's count per call with its spread over processes, the
smallest step a history of counts can show, and where counts and times disagree.

Counting (valgrind) is perflab.metrics.instructions; this module only reads the counts, so that
the gate and histories can use them without the machinery that measures them.
"""

from __future__ import annotations

from dataclasses import dataclass

# Disagreement threshold between the instruction ratio and the time ratio of two contenders.
DISAGREEMENT_FACTOR = 2.0
# Smallest change point in a history of instruction counts (perflab history --metric instructions).
# Counts of the same code repeat exactly here (0.000% over 5 runs; 0.04% with address-space
# randomization on: benchmarks/instruction_stability.py), so sub-percent steps are real; the 3%
# floor for times (the machine's drift) would hide them.
MIN_HISTORY_STEP = 0.002


@dataclass(frozen=True)
class InstructionsEstimate:
    """A cell's instructions per call: the median over its counted processes, and their range.

    Counts are deterministic, so the range is the whole uncertainty: two counts differ by more
    than their spreads only if the code (or what it runs on) changed."""

    value: float  # median over the processes
    low: float  # the smallest process's count
    high: float  # the largest
    processes: tuple[float, ...]  # one count per separate valgrind process
    loops: int  # calls counted in each process

    @property
    def spread(self) -> float:
        """(largest - smallest) / median over the processes: 0.0001 is 0.01%."""
        return (self.high - self.low) / self.value if self.value else 0.0


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
