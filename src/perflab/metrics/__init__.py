"""Metrics beside wall time (``perflab run --metric``): instructions, memory, hardware counters.

Wall time is always measured first by perflab.runner at the user's budget; every other metric is
then taken in separate worker processes ("count" jobs, perflab.worker.run_count) for each timed
(case, contender), and shown next to it (perflab.renderers.metrics_terminal).

  instructions  instructions per call under valgrind's callgrind (perflab.metrics.instructions)
  memory        peak RSS and tracemalloc's peak and retained bytes (perflab.metrics.memory)
  counters      perf stat: cycles, instructions, IPC, misses, context switches, page faults
                (perflab.metrics.counters), or one line saying the machine does not support them
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perflab.metrics import counters, instructions, memory
from perflab.metrics.common import MetricUnavailable, require, targets
from perflab.results import RunResult

TIME, INSTRUCTIONS, MEMORY, COUNTERS = "time", "instructions", "memory", "counters"
NAMES = (TIME, INSTRUCTIONS, MEMORY, COUNTERS)


@dataclass
class Measured:
    """Everything the requested metrics measured for one run."""

    instructions: list[instructions.InstructionCount] | None = None
    disagreements: list[instructions.Disagreement] = field(default_factory=list)
    memory: list[memory.MemoryUse] | None = None
    counters: list[counters.CounterReading] | None = None
    counters_unsupported: str | None = None   # why perf stat has no hardware counters here

    @property
    def errors(self) -> list[str]:
        rows = [*(self.instructions or []), *(self.memory or []), *(self.counters or [])]
        return [f"{row.case}/{row.contender}: {row.error}" for row in rows if row.error]


def check_tools(names: list[str]) -> None:
    """Before anything is measured: MetricUnavailable if a required tool is missing.

    Only valgrind is required; perf stat missing or unsupported is reported, not an error."""
    if INSTRUCTIONS in names:
        require("valgrind", "valgrind")


def measure(result: RunResult, names: list[str], timeout: float = 600.0) -> Measured:
    """The requested metrics for every cell that the timing run measured."""
    timed = targets(result)
    measured = Measured()
    if INSTRUCTIONS in names:
        measured.instructions = instructions.measure(timed, timeout=timeout)
        measured.disagreements = instructions.disagreements(result, measured.instructions)
    if MEMORY in names:
        measured.memory = memory.measure(timed, timeout=timeout)
    if COUNTERS in names:
        runs, measured.counters_unsupported = counters.probe()
        if runs:  # kernel events are counted even where hardware counters are not
            measured.counters = counters.measure(timed, timeout=timeout)
    return measured


__all__ = ["NAMES", "Measured", "MetricUnavailable", "check_tools", "measure"]
