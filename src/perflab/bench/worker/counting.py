"""The "count" job (perflab.bench.protocol), for perflab.metrics: the operation's calls between region
markers that a counting tool (callgrind, perf) watches, and the process's peak memory. Standard library only."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable

from perflab.bench.worker.events import EventStream
from perflab.bench.worker.process_memory import peak_rss
from perflab.bench.worker.region import measured_region, region_marker
from perflab.bench.worker.user_code import UserCodeError, load_case

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.protocol import CountJob, TracedMemory


def run_count(job: CountJob, events: EventStream) -> None:
    """Warm up, then 0 calls and ``loops`` calls between region markers; report peak memory."""
    benchmark, _, argument = load_case(job["file"], job["case"])
    contender = benchmark.contenders[job["contender"]]
    loops = job["loops"]
    try:
        operation = contender.build()
        measured_region(operation, argument, job.get("warmups", 1))
        gc.collect()  # the same collector state in every repeated run
        rss_before = peak_rss()
        for calls in (0, loops):  # the 0-call region is the fixed cost, subtracted by the parent
            region_marker()
            measured_region(operation, argument, calls)
            region_marker()
        rss_after = peak_rss()
        traced = traced_memory(operation, argument, loops) if job.get("memory") else None
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error
    events.send(
        {"event": "count", "loops": loops, "peak_rss_before": rss_before, "peak_rss_after": rss_after, "traced": traced}
    )


def traced_memory(operation: Callable[[Any], Any], argument: Any, loops: int) -> TracedMemory:
    """tracemalloc over ``loops`` calls: the peak above the start and what was still held after."""
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        measured_region(operation, argument, loops)
        end, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"start": start, "end": end, "peak": peak}
