"""Memory per call: what tracemalloc sees Python allocate, and the worker's peak resident memory.

One worker per (case, contender) warms up and calls the contender N times twice: first plainly,
reading the process's peak RSS (``getrusage`` ``ru_maxrss``) before and after, then under
tracemalloc (which itself costs memory and time, so it does not disturb the RSS reading).

Reported, per (case, contender):
  peak RSS         the worker process's peak resident memory: interpreter, benchmark module,
                   input and N calls together (what the operating system had to provide);
  RSS growth       how far the N calls raised that peak above its level after set-up;
  peak traced      tracemalloc's peak during the N calls above the start: the most memory the
                   calls held at once (one call's working memory, when calls keep nothing);
  retained / call  traced memory still held after the N calls, divided by N (a cache or leak).
tracemalloc sees allocations through Python's allocators only (not, e.g., a C library's malloc).

And, per (case, contender), the two figures memory verdicts and the memory gate use, from
ALLOCATION_RUNS separate processes of the allocation profile's job (perflab.profile.allocations:
memray, which sees native allocations too and counts what was allocated and freed again, which
tracemalloc cannot):
  allocated / call  bytes allocated per call (Python's allocators and malloc);
  peak              bytes live at the moment the tracked calls held the most.
Both repeat almost exactly from process to process, so each is kept per process, and their range
is the uncertainty (perflab.analysis.counts.ProcessSpread), as for instruction counts.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

from perflab.analysis.counts import ProcessSpread
from perflab.metrics.count_jobs import MetricUnavailable, Target, loops_for, run_counted_worker
from perflab.profile.allocations import AllocationSettings, per_process, profile_allocations

# tracemalloc slows calls a few times; ~0.1 s of native calls keeps each worker to a second or so.
NATIVE_SECONDS = 0.1
# Processes per cell for bytes allocated per call and the peak: their range is the figures' uncertainty.
ALLOCATION_RUNS = 3
# Calls per process of those: every allocation is a record memray writes and perflab reads, so fewer
# than a profile's (the calls' shared ~80 bytes of loop overhead stay under 1 byte per call).
ALLOCATION_SECONDS, ALLOCATION_LOOPS = 0.005, (100, 10_000)


@dataclass
class MemoryUse:
    case: str
    contender: str
    loops: int
    peak_rss: int | None = None  # bytes
    rss_growth: int | None = None  # bytes
    peak_traced: int | None = None  # bytes above the traced memory at the start of the calls
    retained_per_call: float | None = None  # bytes
    error: str | None = None
    allocated_per_call: list[float] = field(default_factory=list)  # memray, bytes, one per process
    peak_allocated: list[float] = field(default_factory=list)  # memray, bytes live at the peak, one per process
    allocation_loops: int = 0  # calls per process of those two

    @property
    def allocated(self) -> ProcessSpread | None:
        """Bytes allocated per call over the processes (None: not measured)."""
        return ProcessSpread.of(self.allocated_per_call, self.allocation_loops) if self.allocated_per_call else None

    @property
    def peak(self) -> ProcessSpread | None:
        """Bytes live at the calls' peak over the processes (None: not measured)."""
        return ProcessSpread.of(self.peak_allocated, self.allocation_loops) if self.peak_allocated else None


def require_memray() -> None:
    """MetricUnavailable unless memray can be imported (the ``perflab[memory]`` extra)."""
    if importlib.util.find_spec("memray") is None:
        raise MetricUnavailable("memray not installed (--metric memory needs it): pip install 'perflab[memory]'")


def measure(targets: list[Target], timeout: float = 600.0, loops: int | None = None) -> list[MemoryUse]:
    uses = []
    for target in targets:
        use = MemoryUse(target.case, target.contender, loops or loops_for(target.time_per_call, NATIVE_SECONDS))
        report = run_counted_worker(target, use.loops, timeout, memory=True)
        if report.error:
            use.error = report.error
        else:
            count = report.count or {}
            traced = count["traced"]
            use.peak_rss = count["peak_rss_after"]
            use.rss_growth = count["peak_rss_after"] - count["peak_rss_before"]
            use.peak_traced = traced["peak"] - traced["start"]
            use.retained_per_call = (traced["end"] - traced["start"]) / use.loops
            _allocations(target, use, timeout)
        uses.append(use)
    return uses


def _allocations(target: Target, use: MemoryUse, timeout: float) -> None:
    """Bytes allocated per call and the peak, per process, from the allocation profile's runs."""
    side = target.side
    fewest, most = ALLOCATION_LOOPS
    loops = max(fewest, loops_for(target.time_per_call, ALLOCATION_SECONDS, most))
    settings = AllocationSettings(
        runs=ALLOCATION_RUNS, loops=loops, timeout=timeout, python=side.python, sys_path=side.sys_path
    )
    outcome = profile_allocations(side.file, target.case, side.contender, settings)
    if outcome.error or outcome.interrupted:
        use.error = outcome.error or "interrupted"
        return
    figures = per_process(outcome.profile)
    use.allocated_per_call, use.peak_allocated = figures["allocated"], figures["peak"]
    use.allocation_loops = outcome.profile.metadata["run_info"][0]["loops"]
