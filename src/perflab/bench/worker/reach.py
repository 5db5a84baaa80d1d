"""The "reach" job (perflab.bench.protocol), for ``perflab check --affected``: every Python function
one (case, contender) runs, from loading the benchmark file to the last traced call of the
operation. Standard library only.

Loading, the case's input and the contender's set-up are traced too, not only the timed calls: a
function that builds the input or runs at import decides what the timed calls do. What runs in
another process is out of sight, so starting a program is reported and the cell always runs.
"""

from __future__ import annotations

import sys
import threading
from types import FrameType

from perflab.bench.worker.events import EventStream
from perflab.bench.worker.region import measured_region
from perflab.bench.worker.user_code import UserCodeError, fresh_input, load_case

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.protocol import ReachJob

# Audit events (sys.addaudithook) of a process starting another program.
_STARTS_PROGRAM = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork")


def run_reach(job: ReachJob, events: EventStream) -> None:
    """Trace the cell, its operation called ``calls`` times (each call on a fresh copy of the input
    when the benchmark declares mutates_input), and report the code it ran by file."""
    reached: dict[str, set[int]] = {}
    programs: list[str] = []

    def record(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            # A module's own code says 0: its first line may be a function's (``def`` on line 1).
            line = 0 if code.co_name == "<module>" else code.co_firstlineno
            reached.setdefault(code.co_filename, set()).add(line)

    def audit(event: str, arguments: tuple) -> None:
        if event in _STARTS_PROGRAM and not programs:
            programs.append(event)

    sys.addaudithook(audit)  # (no way to remove it: the worker ends with the job)
    _trace(record)
    try:
        benchmark, case, argument = load_case(job["file"], job["case"])
        contender = benchmark.contenders[job["contender"]]
        try:
            operation = contender.build()
            for _ in range(job["calls"]):
                call_input = fresh_input(case, argument, job["file"]) if benchmark.mutates_input else argument
                measured_region(operation, call_input, 1)
        except Exception as error:
            raise UserCodeError("contender", contender.name, error, job["file"]) from error
    finally:
        _trace(None)
    events.send(
        {
            "event": "reach",
            "code": {file: sorted(lines) for file, lines in reached.items()},
            "starts_programs": programs[0] if programs else None,
        }
    )


def _trace(function: Any) -> None:
    """Profile every thread with ``function`` (None: stop), those already running too where Python can."""
    sys.setprofile(function)
    threading.setprofile(function)
    every_thread = getattr(threading, "setprofile_all_threads", None)  # Python 3.12+
    if every_thread is not None:
        every_thread(function)
