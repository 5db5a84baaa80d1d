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
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.metrics.count_jobs import Target, loops_for, run_counted_worker

# tracemalloc slows calls a few times; ~0.1 s of native calls keeps each worker to a second or so.
NATIVE_SECONDS = 0.1


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
        uses.append(use)
    return uses
