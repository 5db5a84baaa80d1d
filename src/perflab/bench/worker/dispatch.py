"""The worker process's main loop: read one job (perflab.bench.protocol), run it, and end the event
stream with "done" or with one "error" event saying whose code failed and where.

Run as ``python -m perflab.bench.worker`` with the JSON job as the first line of standard input.
Events go to the original standard output; the benchmark's own prints are sent to standard error
so they can never corrupt the stream. Standard library only: this package also runs under
interpreters where perflab is not installed.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

from perflab.bench.loading import run_on_case
from perflab.bench.spec import BenchmarkFileError
from perflab.bench.worker.events import EventStream
from perflab.bench.worker.user_code import UserCodeError, location_in

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any, TextIO

    from perflab.bench.protocol import ErrorEvent


def main() -> int:
    # Keep the protocol on private copies of stdin and stdout; user prints go to stderr, and user
    # code that reads or closes standard input finds /dev/null there, not the parent's commands.
    protocol = os.fdopen(os.dup(1), "w")
    commands = os.fdopen(os.dup(0), "r")
    os.dup2(2, 1)
    with open(os.devnull) as nothing:
        os.dup2(nothing.fileno(), 0)
    sys.stdout = sys.stderr
    events = EventStream(protocol)
    failure = _run_job(commands, events)
    # Before the last event: the parent kills the process group as soon as it has it. Only a
    # command contender writes inputs, and only a command benchmark imports perflab.bench.commands.
    commands_module = sys.modules.get("perflab.bench.commands")
    if commands_module is not None:
        commands_module.remove_written_inputs()
    if failure is not None:
        events.send(failure)
        return 1
    events.send({"event": "done"})
    return 0


def _import_first(directories: list[str]) -> None:
    """A revision's code (its worktree, or its build) before installed code; and instead of the
    current directory (``python -m``'s first entry), which may hold the working tree's copy of the
    project: a module the revision lacks must not come from there."""
    if directories and sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]
    sys.path[:0] = directories


def _run_job(commands: TextIO, events: EventStream) -> ErrorEvent | None:
    """Read the job and run it; the "error" event when it failed."""
    job: dict[str, Any] = {}
    try:
        job = json.loads(commands.readline())
        _import_first(job.get("sys_path", []))
        _dispatch(job, events, commands)
    except BenchmarkFileError as error:
        return {"event": "error", "kind": "file", "message": str(error)}
    except _UnknownJob as error:
        return {"event": "error", "kind": "job", "message": str(error)}
    except UserCodeError as error:
        return {
            "event": "error",
            "kind": error.role,
            "message": str(error),
            "location": error.location,
            "exception": type(error.error).__name__,
            "detail": str(error.error),
            "missing": error.missing,
            "skipped": error.skipped,
        }
    except SystemExit as error:  # only user code calls it in here
        return {
            "event": "error",
            "kind": "exit",
            "location": location_in(error, job.get("file", "")),
            "message": f"the benchmark called sys.exit({error.code!r}): a case or contender must return, "
            "not end the process",
        }
    except Exception as error:
        failure = _job_mode_failure(error)
        if failure is None:
            raise
        return failure
    return None


def _job_mode_failure(error: Exception) -> ErrorEvent | None:
    """The error event of a job mode's own failures (a missing tool, fuzzing that cannot go on), or
    None; their modules are imported here, not at start-up, as the job modes' are."""
    from perflab.bench.worker.allocations import ToolMissing
    from perflab.bench.worker.fuzz import FuzzError

    if isinstance(error, ToolMissing):
        return {"event": "error", "kind": "tool", "message": str(error)}
    if isinstance(error, FuzzError):
        return {"event": "error", "kind": error.kind, "message": str(error)}
    return None


class _UnknownJob(Exception):
    """A job this worker does not know: perflab and the worker's copy of it differ."""


# The JSON job is handed, unchecked, to the function of its mode, typed with that mode's job: here
# (module of perflab.bench.worker, function), imported when its job comes. A worker runs one job,
# and a counted one runs under valgrind, where importing every mode's modules at start-up was 40%
# more instructions than the counting job's own imports (seconds of CPU per simulated process).
_ONE_SHOT = {
    "check": ("checks", "run_check"),
    "output": ("checks", "run_output"),
    "seed": ("checks", "run_seed"),
    "fuzz": ("checks", "run_fuzz"),
    "describe": ("describe", "run_describe"),
    "packages": ("describe", "run_packages"),
    "count": ("counting", "run_count"),
    "allocations": ("allocations", "run_allocations"),
    "reach": ("reach", "run_reach"),
}
# These read the commands that follow the job, until {"do": "exit"}.
_COMMANDED = {"time": ("timing", "run_timing"), "profile": ("profiling", "run_profile")}


def _dispatch(job: dict[str, Any], events: EventStream, commands: TextIO) -> None:
    mode = job["mode"]
    if mode in _COMMANDED:
        run = lambda: _job_function(*_COMMANDED[mode])(job, events, commands)
    elif mode in _ONE_SHOT:
        run = lambda: _job_function(*_ONE_SHOT[mode])(job, events)
    else:
        raise _UnknownJob(f"unknown job mode {mode!r}: is this worker's perflab another version than the parent's?")
    if "case" in job:  # a job on one case: a pyperf script's runs inside the script's call (pyperf's semantics)
        run_on_case(job["file"], job["case"], run)
    else:
        run()


def _job_function(module: str, name: str) -> Any:
    return getattr(importlib.import_module(f"perflab.bench.worker.{module}"), name)
