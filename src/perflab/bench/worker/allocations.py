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
import inspect
import os
import shutil
import sys
import sysconfig
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from types import FrameType

from perflab.bench.worker.events import EventStream
from perflab.bench.worker.region import calibrate, measured_region
from perflab.bench.worker.user_code import UserCodeError, load_case

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.protocol import AllocationsEvent, AllocationsJob

# memray's AllocatorType values that release memory: PYMALLOC_FREE, FREE, MUNMAP (no stack, no size).
_RELEASES = {1, 5, 15}
_MAX_LOOPS = 10**5  # every allocation is a record in the capture file: keep it to seconds to read
# The loop's own allocations (its iterator, the clock's floats: ~80 bytes) are shared by the calls:
# at least this many keep them under 10 bytes per call, also when a loaded machine makes
# calibration settle on one call.
_MIN_LOOPS = 10
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class ToolMissing(Exception):
    """A tool the job needs is not installed under this interpreter; the message says what to install."""


def run_allocations(job: AllocationsJob, events: EventStream) -> None:
    """Warm up, then ``loops`` calls under memray; one "allocations" event with the four views."""
    memray = _memray()
    benchmark, _, argument = load_case(job["file"], job["case"])
    contender = benchmark.contenders[job["contender"]]
    try:
        operation = contender.build()
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error
    try:
        event = track_calls(operation, argument, job["loops"], job["value_time"], job["warmups"], job["native"], memray)
    except OperationFailed as failed:
        raise UserCodeError("contender", contender.name, failed.error, job["file"]) from failed.error
    events.send(event)


class OperationFailed(Exception):
    """The operation raised while its calls were tracked (``error``)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _memray() -> Any:
    try:
        import memray
    except ModuleNotFoundError as error:
        raise ToolMissing(  # perflab need not be installed under a compared interpreter: memray alone
            f"memray is not installed for {sys.executable} ({error}): {sys.executable} -m pip install memray"
        ) from error
    return memray


def track_calls(
    operation: Callable[[Any], Any],
    argument: Any,
    loops: int | None,
    value_time: float,
    warmups: int,
    native: bool,
    memray: Any = None,
) -> AllocationsEvent:
    """The job's measurement of one operation already built: ``warmups`` calls, then ``loops``
    calls (None: what takes ``value_time`` untracked) under memray, and the four views. The
    pytest plugin calls it in its own process for ``--perflab-metric memory``."""
    memray = memray or _memray()
    directory = tempfile.mkdtemp(prefix="perflab-memray-")
    try:
        try:
            measured_region(operation, argument, warmups)
            loops = loops or max(_MIN_LOOPS, min(_MAX_LOOPS, calibrate(operation, argument, value_time)))
            gc.collect()  # garbage of the set-up is not freed inside the tracked calls
            capture = os.path.join(directory, "capture.bin")
            tracker = memray.Tracker(capture, native_traces=native, trace_python_allocators=True)
            _calls(tracker, operation, argument, loops)
            frames = _FrameObjects()
            if not native:  # the same calls again, untracked, counting the frame objects
                _calls(frames, operation, argument, loops)
        except Exception as error:
            raise OperationFailed(error) from error
        with memray.FileReader(capture) as reader:
            allocated: Counter[tuple[str, ...]] = Counter()
            count: Counter[tuple[str, ...]] = Counter()
            stacks = _StackLabels(native)
            for record in reader.get_allocation_records():
                if record.allocator in _RELEASES:
                    continue
                stack = stacks.of(record)
                allocated[stack] += record.size
                count[stack] += record.n_allocations
            subtracted = frames.subtract_from(allocated, count) if not native else "native frames were collected"
            views = {
                "allocated": allocated,
                "allocations": count,
                "peak": _sizes(stacks, reader.get_high_watermark_allocation_records(merge_threads=True)),
                "held": _sizes(stacks, reader.get_leaked_allocation_records(merge_threads=True)),
            }
        return {
            "event": "allocations",
            "loops": loops,
            "memray": str(getattr(memray, "__version__", "?")),
            "paths": sysconfig.get_paths(),
            "views": {name: [[list(stack), value] for stack, value in view.items()] for name, view in views.items()},
            "frame_objects": {
                "bytes": sum(frames.bytes.values()),
                "count": sum(frames.count.values()),
                "not_subtracted": subtracted,
            },
        }
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _calls(around: Any, operation: Any, argument: Any, loops: int) -> None:
    """The calls inside ``around`` (memray's Tracker, or _FrameObjects): both see stacks starting at this frame."""
    with around:
        measured_region(operation, argument, loops)


class _FrameObjects:
    """The frame objects memray's profile hook makes CPython 3.11+ create, one per Python function
    call (an untracked call keeps its frame on the interpreter's stack, with no object), counted by
    a profile hook of its own over the same calls: by calling stack, in memray's labels, with
    ``sys.getsizeof`` of each frame, which is what memray records for it. Subtracted from the
    tracked calls' allocations, so that a profile shows what the operation allocates untracked.

    The hook sees what memray's sees only for plain functions in the calling thread: a generator or
    coroutine's frame object is made once and kept, and other threads are followed by
    threading.setprofile only from their start. Then, or when a count finds fewer allocations than
    frames at a stack (calls that differ between the two passes), nothing is subtracted.
    """

    def __init__(self) -> None:
        self.bytes: Counter[tuple[str, ...]] = Counter()
        self.count: Counter[tuple[str, ...]] = Counter()
        self.unsure: str | None = None

    def __enter__(self) -> None:
        threading.setprofile(self._hook)
        sys.setprofile(self._hook)

    def __exit__(self, *_: object) -> None:
        sys.setprofile(None)
        threading.setprofile(None)

    def _hook(self, frame: FrameType, event: str, _: Any) -> None:
        if event != "call" or frame.f_code is _FrameObjects.__exit__.__code__:  # (memray's Tracker is C code)
            return
        if frame.f_code.co_flags & _RESUMABLE:
            self.unsure = f"{frame.f_code.co_name} is a generator or coroutine"
        elif threading.current_thread() is not threading.main_thread():
            self.unsure = "the operation runs Python code in other threads"
        labels = []
        caller: FrameType | None = frame.f_back
        while caller is not None:  # up to the frame memray's stacks start at
            labels.append(_label(caller.f_code.co_name, caller.f_code.co_filename, caller.f_lineno))
            if caller.f_code is _calls.__code__:
                break
            caller = caller.f_back
        stack = tuple(reversed(labels))
        self.bytes[stack] += sys.getsizeof(frame)
        self.count[stack] += 1

    def subtract_from(self, allocated: Counter[tuple[str, ...]], allocations: Counter[tuple[str, ...]]) -> str | None:
        """Subtract the frame objects from the tracked calls' views; None when done, else why not."""
        if self.unsure:
            return self.unsure
        for stack, size in self.bytes.items():
            if allocated[stack] < size or allocations[stack] < self.count[stack]:
                return "the calls differed between the tracked pass and the count of their frames"
        allocated.subtract(self.bytes)
        allocations.subtract(self.count)
        for view in (allocated, allocations):
            for stack in [stack for stack, value in view.items() if value == 0]:
                del view[stack]
        return None


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
