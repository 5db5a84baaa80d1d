"""The "allocations" job (perflab.bench.protocol): the operation's calls under memray's Tracker, and
what they allocated by call path. Standard library only, except memray, imported here alone and only
when this job runs (the ``perflab[memory]`` extra): no other job's process loads it.

memray sees every allocation, Python's small-object allocator included (``trace_python_allocators``;
without it, small objects taken from an existing pymalloc arena would not be seen at all), and
with ``native`` the C frames that made it. Its stacks start at the frame that entered the Tracker,
so the parent keeps what is below ``measured_region`` (perflab.profile.processors), as for time.
"""

from __future__ import annotations

import gc
import os
import shutil
import sysconfig
import tempfile
from collections import Counter
from collections.abc import Iterable
from typing import Any

from perflab.bench.protocol import AllocationsEvent, AllocationsJob
from perflab.bench.worker.events import EventStream
from perflab.bench.worker.region import calibrate, measured_region
from perflab.bench.worker.user_code import UserCodeError, load_case

# memray's AllocatorType values that release memory: PYMALLOC_FREE, FREE, MUNMAP (no stack, no size).
_RELEASES = {1, 5, 15}
_MAX_LOOPS = 10**5  # every allocation is a record in the capture file: keep it to seconds to read


class ToolMissing(Exception):
    """A tool the job needs is not installed under this interpreter; the message says what to install."""


def run_allocations(job: AllocationsJob, events: EventStream) -> None:
    """Warm up, then ``loops`` calls under memray; one "allocations" event with the four views."""
    try:
        import memray
    except ModuleNotFoundError as error:
        raise ToolMissing(
            f"memray is not installed for this interpreter ({error}): pip install 'perflab[memory]'"
        ) from error
    benchmark, _, argument = load_case(job["file"], job["case"])
    contender = benchmark.contenders[job["contender"]]
    directory = tempfile.mkdtemp(prefix="perflab-memray-")
    try:
        try:
            operation = contender.build()
            measured_region(operation, argument, job["warmups"])
            loops = job["loops"] or min(_MAX_LOOPS, calibrate(operation, argument, job["value_time"]))
            gc.collect()  # garbage of the set-up is not freed inside the tracked calls
            capture = os.path.join(directory, "capture.bin")
            _tracked(memray, capture, job["native"], operation, argument, loops)
        except Exception as error:
            raise UserCodeError("contender", contender.name, error, job["file"]) from error
        with memray.FileReader(capture) as reader:
            native = job["native"]
            allocated: Counter[tuple[str, ...]] = Counter()
            count: Counter[tuple[str, ...]] = Counter()
            stacks = _StackLabels(native)
            for record in reader.get_allocation_records():
                if record.allocator in _RELEASES:
                    continue
                stack = stacks.of(record)
                allocated[stack] += record.size
                count[stack] += record.n_allocations
            views = {
                "allocated": allocated,
                "allocations": count,
                "peak": _sizes(stacks, reader.get_high_watermark_allocation_records(merge_threads=True)),
                "held": _sizes(stacks, reader.get_leaked_allocation_records(merge_threads=True)),
            }
        events.send(
            AllocationsEvent(
                event="allocations",
                loops=loops,
                memray=str(getattr(memray, "__version__", "?")),
                paths=sysconfig.get_paths(),
                views={name: [[list(stack), value] for stack, value in view.items()] for name, view in views.items()},
            )
        )
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _tracked(memray: Any, capture: str, native: bool, operation: Any, argument: Any, loops: int) -> None:
    """The calls under the Tracker: its stacks start at this frame, above ``measured_region``."""
    with memray.Tracker(capture, native_traces=native, trace_python_allocators=True):
        measured_region(operation, argument, loops)


def _sizes(stacks: _StackLabels, records: Iterable[Any]) -> Counter[tuple[str, ...]]:
    sizes: Counter[tuple[str, ...]] = Counter()
    for record in records:
        sizes[stacks.of(record)] += record.size
    return sizes


class _StackLabels:
    """Each record's stack as frame labels in py-spy's format, outermost first; read once per distinct stack."""

    def __init__(self, native: bool):
        self.native = native
        self._known: dict[tuple[int, ...], tuple[str, ...]] = {}

    def of(self, record: Any) -> tuple[str, ...]:
        key = (record.tid, record.stack_id, record.native_stack_id, record.native_segment_generation)
        stack = self._known.get(key)
        if stack is None:
            frames = record.hybrid_stack_trace() if self.native else record.stack_trace()
            stack = self._known[key] = tuple(_label(*frame) for frame in reversed(frames))
        return stack


def _label(name: str, file: str, line: int) -> str:
    if not file or file == "???":
        return name
    return f"{name} ({file}:{line})" if line else f"{name} ({file})"
