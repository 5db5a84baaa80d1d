"""pytest-memray's ``@pytest.mark.limit_memory("24 MB")`` and ``@pytest.mark.limit_leaks("1 KB")``,
honoured with pytest-memray's semantics and failure messages, so that a test file written for it
runs unchanged under ``pytest --perflab`` (docs/migrating.md says what differs).

A test with one of the markers runs under memray's ``Tracker`` (the ``perflab[memory]`` extra), as
pytest-memray runs it; after the test passed:

- ``limit_memory(limit, current_thread_only=False)``: the sum of the allocations live at the
  test's peak (memray's high watermark) must be under ``limit``, else "Test was limited to 24.0MiB
  but allocated 30.5MiB";
- ``limit_leaks(location_limit, filter_fn=None, current_thread_only=False)``: no call stack may
  have left ``location_limit`` or more allocated when the test returned (Python and native frames,
  every small-object allocation traced), else "Test was allowed to leak 1.0KiB per location but
  at least one location leaked more". ``filter_fn(stack)`` returning False drops a stack.

When pytest-memray itself is installed, it tracks these markers (two memray trackers cannot run at
once), and this module stays out of its way.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import re
import shutil
import tempfile
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PYTEST_MEMRAY_PLUGIN = "memray"  # pytest-memray's entry point name
MARKERS = {
    "limit_memory": "limit_memory(memory_limit, current_thread_only=False): fail the test if the memory "
    "it holds at its peak reaches memory_limit ('24 MB'; pytest-memray's marker, honoured by perflab)",
    "limit_leaks": "limit_leaks(location_limit, filter_fn=None, current_thread_only=False): fail the test if "
    "a call stack leaks location_limit or more ('1 KB'; pytest-memray's marker, honoured by perflab)",
}
SECTION_ALLOCATIONS = 10  # the largest allocations listed under a failure, as pytest-memray does
SECTION_FRAMES = 5
_SIZE = re.compile(r"(?P<quantity>\+?\d*\.\d+|\+?\d+)\s*(?P<unit>[KMGTP]B|B)", re.IGNORECASE)
_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4, "PB": 1024**5}


@dataclass(frozen=True)
class StackFrame:
    """One frame of the stack a leak's ``filter_fn`` is given (pytest-memray's fields)."""

    function: str
    filename: str
    lineno: int


@dataclass(frozen=True)
class Stack:
    frames: tuple[StackFrame, ...]  # most recent first


def parse_size(text: str) -> float:
    """'24 MB' -> bytes, in pytest-memray's format (binary multiples: 1 KB is 1024 B)."""
    match = _SIZE.match(text) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"Invalid memory size format: {text}")
    return float(match["quantity"]) * _UNITS[match["unit"].upper()]


def format_size(size: float) -> str:
    """As pytest-memray writes sizes in its messages: '24.0MiB', '512.0B'."""
    for unit in ("", "Ki", "Mi", "Gi", "Ti", "Pi"):
        if abs(size) < 1024.0:
            return f"{size:3.1f}{unit}B"
        size /= 1024.0
    return f"{size:.1f}EiB"


def register(config: pytest.Config) -> None:
    """Honour the markers in this session, unless pytest-memray is there to."""
    if config.pluginmanager.has_plugin(PYTEST_MEMRAY_PLUGIN):
        return
    for line in MARKERS.values():
        config.addinivalue_line("markers", line)
    config.pluginmanager.register(MemoryLimits(), "perflab-memory-limits")


class MemoryLimits:
    """The hooks: the test body under memray, then its limit checked on the capture."""

    def __init__(self) -> None:
        self.captures: dict[str, Path] = {}
        self.numbers = itertools.count()
        self.directory: Path | None = None  # made for the first marked test

    def pytest_unconfigure(self) -> None:
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Generator[None, None, None]:
        markers = [marker for marker in pyfuncitem.iter_markers() if marker.name in MARKERS]
        if not markers:
            yield
            return
        if len({marker.name for marker in markers}) > 1:
            raise ValueError("Only one Memray marker can be applied to each test")  # pytest-memray's rule
        mistake = _argument_error(markers[0])
        if mistake is not None:  # said before the body runs; from the report hook it aborted the session
            pytest.fail(mistake, pytrace=False)
        try:
            import memray
        except ModuleNotFoundError:
            pytest.fail(f"@pytest.mark.{markers[0].name} needs memray: pip install 'perflab[memory]'", pytrace=False)
        leaks = markers[0].name == "limit_leaks"  # leaks need every small-object allocation and C frames
        self.directory = self.directory or Path(tempfile.mkdtemp(prefix="perflab-memray-"))
        capture = self.directory / f"{next(self.numbers)}.bin"  # never a name used before: memray refuses to overwrite
        self.captures[pyfuncitem.nodeid] = capture
        function = pyfuncitem.obj

        def tracked() -> Any:
            pyfuncitem.obj = function  # a plugin that calls this hook again must not wrap it twice
            return memray.Tracker(
                capture,
                native_traces=leaks,
                trace_python_allocators=leaks,
                file_format=memray.FileFormat.AGGREGATED_ALLOCATIONS,
            )

        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with tracked():
                    return await function(*args, **kwargs)

            pyfuncitem.obj = run_async
        else:

            @functools.wraps(function)
            def run(*args: Any, **kwargs: Any) -> Any:
                with tracked():
                    return function(*args, **kwargs)

            pyfuncitem.obj = run
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        outcome = yield
        report = outcome.get_result()
        capture = self.captures.pop(item.nodeid, None) if call.when == "call" else None
        if capture is None or not capture.exists():
            return
        if report.outcome != "passed":  # failed or skipped in its body: no limit to check
            capture.unlink()
            return
        marker = next(marker for marker in item.iter_markers() if marker.name in MARKERS)
        try:
            failure = CHECKS[marker.name](capture, *marker.args, **marker.kwargs)
        finally:
            capture.unlink()
        if failure is not None:
            message, section = failure
            report.outcome, report.longrepr = "failed", message
            report.sections.append((f"memray-{marker.name.replace('_', '-')}", section))


def limit_memory(capture: Path, memory_limit: str, *, current_thread_only: bool = False) -> tuple[str, str] | None:
    """(message, section) when the allocations live at the test's peak reach ``memory_limit``."""
    import memray

    limit = parse_size(memory_limit)
    with memray.FileReader(capture) as reader:
        records = _records(reader, reader.get_high_watermark_allocation_records, current_thread_only)
        allocated = sum(record.size for record in records)
        if allocated < limit:
            return None
        section = "List of allocations:\n" + _listing(records, native=False)
    return f"Test was limited to {format_size(limit)} but allocated {format_size(allocated)}", section


def limit_leaks(
    capture: Path,
    location_limit: str,
    *,
    filter_fn: Callable[[Stack], bool] | None = None,
    current_thread_only: bool = False,
) -> tuple[str, str] | None:
    """(message, section) when a call stack left ``location_limit`` or more allocated."""
    import memray

    limit = parse_size(location_limit)
    with memray.FileReader(capture) as reader:
        records = _records(reader, reader.get_leaked_allocation_records, current_thread_only)
        leaked = [
            record
            for record in records
            if record.size >= limit
            and (filter_fn is None or filter_fn(Stack(tuple(StackFrame(*f) for f in record.hybrid_stack_trace()))))
        ]
        if not leaked:
            return None
        section = "List of leaked allocations:\n" + _listing(leaked, native=True)
    return f"Test was allowed to leak {format_size(limit)} per location but at least one location leaked more", section


CHECKS: dict[str, Callable[..., tuple[str, str] | None]] = {"limit_memory": limit_memory, "limit_leaks": limit_leaks}


def timed_under_tracking(item: pytest.Item) -> str | None:
    """The note for a benchmark timed in a test memray tracks (one of the markers): the whole test
    body runs under its Tracker, whose overhead is then in every value."""
    marker = next((marker for marker in item.iter_markers() if marker.name in MARKERS), None)
    if marker is None:
        return None
    return f"timed under memray's tracker (@pytest.mark.{marker.name} tracks the whole test): its overhead is in these times"


def _argument_error(marker: pytest.Mark) -> str | None:
    """What is wrong with a marker's arguments (a size that does not parse, a missing or unknown
    argument), as one line naming the marker, else None."""
    check = CHECKS[marker.name]
    try:
        size = list(inspect.signature(check).bind(None, *marker.args, **marker.kwargs).arguments.values())[1]
        parse_size(size)
    except TypeError as error:
        said = str(error)
    except ValueError as error:
        said = f"{error} (a size is written as '24 MB', '512 KB' or '1.5 GB')"
    else:
        return None
    written = ", ".join([*map(repr, marker.args), *(f"{name}={value!r}" for name, value in marker.kwargs.items())])
    return f"@pytest.mark.{marker.name}({written}): {said}"


def _records(reader: Any, read: Callable[..., Iterable[Any]], current_thread_only: bool) -> list[Any]:
    records = read(merge_threads=not current_thread_only)
    main = reader.metadata.main_thread_id
    return [record for record in records if not current_thread_only or record.tid == main]


def _listing(records: list[Any], native: bool) -> str:
    """The largest allocations and where they were made, most recent frame first."""
    lines = []
    for record in sorted(records, key=lambda r: r.size, reverse=True)[:SECTION_ALLOCATIONS]:
        lines.append(f"    - {format_size(record.size)} allocated here:")
        frames = record.hybrid_stack_trace() if native else record.stack_trace()
        lines += [f"        {function}:{file}:{line}" for function, file, line in frames[:SECTION_FRAMES]]
        lines += ["        ..."] if len(frames) > SECTION_FRAMES else []
    if len(records) > SECTION_ALLOCATIONS:
        lines.append(f"    ...and {len(records) - SECTION_ALLOCATIONS} more")
    return "\n".join(lines)
