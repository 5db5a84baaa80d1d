"""``--perflab-metric memory``: memory per call of every benchmark, as ``perflab run --metric memory``
measures it (docs/metrics.md), but in the pytest process, where the benchmarked function lives.

After a benchmark is timed, its call is measured by the same code as the worker jobs of
``--metric memory`` (perflab.metrics.memory), called here instead of in a worker:

- bytes allocated per call and bytes live at the peak: ``ALLOCATION_RUNS`` runs of the allocation
  job's measurement (perflab.bench.worker.allocations.track_calls: memray's Tracker around the
  calls, Python and native allocations, memray's own frame objects subtracted), trimmed to the
  operation as a profile is; their range is the figures' uncertainty. The runs are in one process,
  one after the other, so they do not see the variation between processes that ``perflab run``'s do;
- peak traced and retained per call: tracemalloc over the calls (the count job's reading), once.

The process's peak RSS is not reported: it is the whole pytest session's, not the benchmark's.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

from perflab.bench.worker.allocations import OperationFailed, track_calls
from perflab.bench.worker.counting import traced_memory
from perflab.metrics.count_jobs import loops_for
from perflab.metrics.memory import ALLOCATION_LOOPS, ALLOCATION_RUNS, ALLOCATION_SECONDS, NATIVE_SECONDS, MemoryUse
from perflab.profile.allocations import WARMUP_CALLS, per_run, run_views
from perflab.profile.processors import path_roots, project_root

# The in-process runs stand where perflab run's processes do; the summary and docs say so.
RUNS_NOTE = f"range over {ALLOCATION_RUNS} runs in this process"


def measure(call: Callable[[], Any], time_per_call: float, case: str, contender: str, test_file: str) -> MemoryUse:
    """Memory per call of ``call`` (which took ``time_per_call`` seconds untracked); a failure is
    kept in the result's ``error``, as a worker's is."""
    operation = _operation(call)
    fewest, most = ALLOCATION_LOOPS
    use = MemoryUse(case, contender, loops_for(time_per_call, NATIVE_SECONDS))
    loops = max(fewest, loops_for(time_per_call, ALLOCATION_SECONDS, most))  # the same calls in every run
    infos = []
    try:
        for _ in range(ALLOCATION_RUNS):
            event = track_calls(operation, None, loops, ALLOCATION_SECONDS, WARMUP_CALLS, native=False)
            infos.append(run_views(event, path_roots(project_root(test_file), event["paths"]))[1])
    except OperationFailed as failed:  # e.g. another memray Tracker active (pytest-memray's)
        use.error = f"memory not measured: {failed.error}"
        return use
    figures = per_run(infos)
    use.allocated_per_call, use.peak_allocated, use.allocation_loops = figures["allocated"], figures["peak"], loops
    if not tracemalloc.is_tracing():  # stopping it would end the tracing someone else started
        traced = traced_memory(operation, None, use.loops)
        use.peak_traced = traced["peak"] - traced["start"]
        use.retained_per_call = (traced["end"] - traced["start"]) / use.loops
    return use


def _operation(call: Callable[[], Any]) -> Callable[[Any], Any]:
    """The jobs call ``operation(argument)``; a benchmark's call takes no argument."""

    def operation(_: Any) -> Any:
        return call()

    return operation


def as_json(use: MemoryUse) -> dict[str, Any]:
    """``benchmark.extra_info["memory"]`` and the JSON's: each figure with its range, in bytes."""
    if use.error:
        return {"error": use.error}
    figures: dict[str, Any] = {
        name: {"value": spread.value, "low": spread.low, "high": spread.high}
        for name, spread in (("allocated_per_call", use.allocated), ("peak", use.peak))
        if spread is not None
    }
    figures.update(
        retained_per_call=use.retained_per_call,
        peak_traced=use.peak_traced,
        runs=len(use.allocated_per_call),
        calls=use.allocation_loops,
        unit="bytes",
    )
    return figures
