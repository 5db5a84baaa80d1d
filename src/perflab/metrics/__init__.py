"""Metrics beside wall time (``perflab run --metric``): instructions, memory, hardware counters.

Wall time is always measured first by perflab.measure.runner at the user's budget; every other metric is
then taken in separate worker processes ("count" jobs, perflab.bench.worker.counting.run_count) for each timed
(case, contender), shown next to it (perflab.render.terminal.metrics) and kept in the
result's ``metrics`` field (``Measured.to_json``), so --json files and the results store hold them.

  instructions  instructions per call under valgrind's callgrind (perflab.metrics.instructions)
  memory        peak RSS and tracemalloc's peak and retained bytes (perflab.metrics.memory)
  cache         simulated cache and branch counters per call, and which functions miss, under valgrind
                (perflab.metrics.cache), with perf stat's hardware counters where the machine has them
  counters      perf stat: cycles, instructions, IPC, misses, context switches, page faults
                (perflab.metrics.counters), or one line saying the machine does not support them
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from perflab.analysis.counts import ALLOCATED, PEAK, Disagreement, InstructionsEstimate, ProcessSpread
from perflab.metrics import cache, counters, instructions, memory
from perflab.metrics.count_jobs import MetricUnavailable, require, targets
from perflab.profile import simulated_cache
from perflab.profile.model import Profile, is_allocation_profile
from perflab.results.model import RunResult

TIME, INSTRUCTIONS, MEMORY, COUNTERS, CACHE = "time", "instructions", "memory", "counters", "cache"
NAMES = (TIME, INSTRUCTIONS, MEMORY, COUNTERS, CACHE)


@dataclass
class Measured:
    """Everything the requested metrics measured for one run."""

    instructions: list[instructions.InstructionCount] | None = None
    disagreements: list[Disagreement] = field(default_factory=list)
    memory: list[memory.MemoryUse] | None = None
    counters: list[counters.CounterReading] | None = None
    counters_unsupported: str | None = None  # why perf stat has no hardware counters here
    cache: list[cache.CacheReading] | None = None

    @property
    def errors(self) -> list[str]:
        rows: list[instructions.InstructionCount | memory.MemoryUse | counters.CounterReading | cache.CacheReading] = [
            *(self.instructions or []),
            *(self.memory or []),
            *(self.counters or []),
            *(self.cache or []),
        ]
        return [f"{row.case}/{row.contender}: {row.error}" for row in rows if row.error]

    def to_json(self) -> dict[str, Any]:
        """The ``metrics`` field of a results file (docs/results-schema.md)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measured:
        """Inverse of ``to_json``; keys a later perflab may add are ignored."""

        def rows(kind: type, key: str) -> list | None:
            known = {f.name for f in fields(kind)}
            items = data.get(key)
            return None if items is None else [kind(**{k: v for k, v in item.items() if k in known}) for item in items]

        return cls(
            instructions=rows(instructions.InstructionCount, "instructions"),
            disagreements=rows(instructions.Disagreement, "disagreements") or [],
            memory=rows(memory.MemoryUse, "memory"),
            counters=rows(counters.CounterReading, "counters"),
            counters_unsupported=data.get("counters_unsupported"),
            cache=rows(cache.CacheReading, "cache"),
        )


def stored(result: RunResult) -> Measured | None:
    """What ``--metric`` measured in this run (None: only wall time, or a file from before metrics
    were kept in results)."""
    return Measured.from_json(result.metrics) if result.metrics else None


def instruction_counts(result: RunResult) -> dict[tuple[str, str], InstructionsEstimate]:
    """(case, contender) -> instructions per call, for every cell of the run that was counted
    (``--metric instructions``); empty when none was. Each estimate carries every process's count
    and their spread, e.g. for a gate on instructions or a history of them."""
    measured = stored(result)
    counts = (measured.instructions if measured else None) or []
    return {(c.case, c.contender): c.estimate for c in counts if c.estimate is not None}


def memory_figures(result: RunResult) -> dict[tuple[str, str], dict[str, ProcessSpread]]:
    """(case, contender) -> {"allocated/call": bytes allocated per call, "peak": bytes live at the
    calls' peak}, each over its processes, for every cell ``--metric memory`` measured; empty when
    none was (or the run is from before memray measured them)."""
    measured = stored(result)
    figures = {}
    for use in (measured.memory if measured else None) or []:
        if use.allocated is not None and use.peak is not None:
            figures[use.case, use.contender] = {ALLOCATED: use.allocated, PEAK: use.peak}
    return figures


def annotate_profile(profile: Profile, result: RunResult, case: str, side: str) -> None:
    """Keep the simulated counts per C function that ``--metric cache`` measured for a cell in a
    time profile of the same cell, for its flame graph's tooltips (nothing without them)."""
    measured = stored(result)
    if measured is None or is_allocation_profile(profile.metadata):
        return
    for reading in measured.cache or []:
        if (reading.case, reading.contender) == (case, side) and reading.functions:
            simulated_cache.keep(profile.metadata, reading.functions)


def check_tools(names: list[str]) -> None:
    """Before anything is measured: MetricUnavailable if a required tool is missing.

    valgrind and memray are required; perf stat missing or unsupported is reported, not an error."""
    if INSTRUCTIONS in names or CACHE in names:
        require("valgrind", "valgrind")
    if MEMORY in names:
        memory.require_memray()


def measure(result: RunResult, names: list[str], timeout: float = 600.0, processes: int | None = None) -> Measured:
    """The requested metrics for every cell that the timing run measured (``processes``: valgrind
    processes per cell for instructions and cache, None for their own REPEATS)."""
    timed = targets(result)
    measured = Measured()
    repeats = processes or instructions.REPEATS
    if INSTRUCTIONS in names:
        measured.instructions = instructions.measure(timed, repeats, timeout=timeout)
        measured.disagreements = instructions.disagreements(result, measured.instructions)
    if MEMORY in names:
        measured.memory = memory.measure(timed, timeout=timeout)
    runs = False  # whether perf stat runs here
    if COUNTERS in names or CACHE in names:
        runs, measured.counters_unsupported = counters.probe()
    if COUNTERS in names and runs:  # kernel events are counted even where hardware counters are not
        measured.counters = counters.measure(timed, timeout=timeout)
    if CACHE in names:
        measured.cache = cache.measure(timed, repeats, timeout=timeout)
        if runs and measured.counters_unsupported is None:  # the real counters beside the simulated ones
            _add_hardware(measured.cache, measured.counters or counters.measure(timed, timeout=timeout))
    return measured


def _add_hardware(readings: list[cache.CacheReading], hardware: list[counters.CounterReading]) -> None:
    by_cell = {(h.case, h.contender): h for h in hardware if not h.error}
    for reading in readings:
        if (found := by_cell.get((reading.case, reading.contender))) is not None:
            reading.hardware = {e: v for e, v in found.per_call.items() if e in counters.HARDWARE}


__all__ = [
    "NAMES",
    "InstructionsEstimate",
    "annotate_profile",
    "Measured",
    "MetricUnavailable",
    "check_tools",
    "instruction_counts",
    "measure",
    "memory_figures",
    "stored",
]
