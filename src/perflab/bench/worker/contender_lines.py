"""Which of the contender's own lines the equivalence checks executed, and which never ran.

"Equivalent on 400 inputs" says little if the branch that differs was never taken: a fast path
for inputs over 4096 items, an error path no input reached. The lines of the contender's
function (and of the functions and comprehensions defined inside it) are recorded while the
fuzzer calls it, with ``sys.monitoring`` (Python 3.12+: line events on these code objects only)
or ``sys.settrace`` around each call before that; the lines that never ran are reported.

Standard library only.
"""

from __future__ import annotations

import dis
import sys
import types
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_TOOL_NAME = "perflab-equivalence"


class LineRecorder:
    """Wraps a contender; ``unrun()`` lists its lines that no call executed."""

    def __init__(self, function: Callable) -> None:
        self.function = function
        self.codes = _code_objects(getattr(function, "__code__", None))
        first = min((code.co_firstlineno for code in self.codes), default=0)
        lines = {line for code in self.codes for _, line in dis.findlinestarts(code) if line is not None}
        self.lines = {line for line in lines if line > first}  # the def line runs at import
        self.ran: set[int] = set()
        self.tool: int | None = None
        self.monitoring = getattr(sys, "monitoring", None)  # Python 3.12+
        if self.codes and self.monitoring is not None:
            self.tool = _start_monitoring(self.monitoring, self.codes, self.ran)

    def __call__(self, argument: Any) -> Any:
        if not self.codes or self.tool is not None or self.lines <= self.ran:
            # sys.monitoring sees every call already; once every line has run, tracing learns nothing
            return self.function(argument)
        previous = sys.gettrace()
        sys.settrace(self._trace_call)
        try:
            return self.function(argument)
        finally:
            sys.settrace(previous)

    def _trace_call(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code not in self.codes:
            return None
        self.ran.add(frame.f_lineno)
        return self._trace_line

    def _trace_line(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.ran.add(frame.f_lineno)
        return self._trace_line

    def unrun(self) -> list[int]:
        """The contender's lines (in its source file) that no call executed, in order."""
        return sorted(self.lines - self.ran)

    def stop(self) -> None:
        if self.tool is not None and self.monitoring is not None:
            for code in self.codes:
                self.monitoring.set_local_events(self.tool, code, 0)
            self.monitoring.free_tool_id(self.tool)
            self.tool = None


def ranges(lines: list[int]) -> str:
    """12, 13, 14, 20 -> "12-14, 20"."""
    parts: list[str] = []
    for line in lines:
        if parts and parts[-1].split("-")[-1] == str(line - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{line}"
        else:
            parts.append(str(line))
    return ", ".join(parts)


def _code_objects(code: types.CodeType | None) -> set[types.CodeType]:
    """``code`` and the code objects nested in it (inner functions, comprehensions, lambdas)."""
    if code is None:
        return set()
    found = {code}
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            found |= _code_objects(constant)
    return found


def _start_monitoring(monitoring: Any, codes: set[types.CodeType], ran: set[int]) -> int | None:
    tool = next((t for t in range(1, 6) if monitoring.get_tool(t) is None), None)
    if tool is None:
        return None
    monitoring.use_tool_id(tool, _TOOL_NAME)

    def line(code: types.CodeType, number: int) -> Any:
        ran.add(number)
        return monitoring.DISABLE  # once seen, a line costs nothing more

    monitoring.register_callback(tool, monitoring.events.LINE, line)
    for code in codes:
        monitoring.set_local_events(tool, code, monitoring.events.LINE)
    return tool
