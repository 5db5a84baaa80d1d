"""The worker process's main loop: read one job (perflab.bench.protocol), run it, and end the event
stream with "done" or with one "error" event saying whose code failed and where.

Run as ``python -m perflab.bench.worker`` with the JSON job as the first line of standard input.
Events go to the original standard output; the benchmark's own prints are sent to standard error
so they can never corrupt the stream. Standard library only: this package also runs under
interpreters where perflab is not installed.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO, cast

from perflab.bench.commands import remove_written_inputs
from perflab.bench.protocol import (
    CheckJob,
    CountJob,
    DescribeJob,
    DoneEvent,
    ErrorEvent,
    FuzzJob,
    OutputJob,
    PackagesJob,
    ProfileJob,
    SeedJob,
    TimeJob,
)
from perflab.bench.spec import BenchmarkFileError
from perflab.bench.worker import fuzz
from perflab.bench.worker.checks import run_check, run_fuzz, run_output, run_seed
from perflab.bench.worker.counting import run_count
from perflab.bench.worker.describe import run_describe, run_packages
from perflab.bench.worker.events import EventStream
from perflab.bench.worker.profiling import run_profile
from perflab.bench.worker.timing import run_timing
from perflab.bench.worker.user_code import UserCodeError, location_in


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
    # Before the last event: the parent kills the process group as soon as it has it.
    remove_written_inputs()
    if failure is not None:
        events.send(failure)
        return 1
    events.send(DoneEvent(event="done"))
    return 0


def _run_job(commands: TextIO, events: EventStream) -> ErrorEvent | None:
    """Read the job and run it; the "error" event when it failed."""
    job: dict[str, Any] = {}
    try:
        job = json.loads(commands.readline())
        sys.path[:0] = job.get("sys_path", [])  # a revision's worktree comes before installed code
        _dispatch(job, events, commands)
    except BenchmarkFileError as error:
        return ErrorEvent(event="error", kind="file", message=str(error))
    except _UnknownJob as error:
        return ErrorEvent(event="error", kind="job", message=str(error))
    except fuzz.FuzzError as error:
        return ErrorEvent(event="error", kind=error.kind, message=str(error))
    except UserCodeError as error:
        return ErrorEvent(
            event="error",
            kind=error.role,
            message=str(error),
            location=error.location,
            exception=type(error.error).__name__,
            detail=str(error.error),
        )
    except SystemExit as error:  # only user code calls it in here
        return ErrorEvent(
            event="error",
            kind="exit",
            location=location_in(error, job.get("file", "")),
            message=f"the benchmark called sys.exit({error.code!r}): a case or contender must return, "
            "not end the process",
        )
    return None


class _UnknownJob(Exception):
    """A job this worker does not know: perflab and the worker's copy of it differ."""


def _dispatch(job: dict[str, Any], events: EventStream, commands: TextIO) -> None:
    """Run the job its mode names ("time" and "profile" also read the commands that follow)."""
    mode = job["mode"]
    if mode == "time":
        run_timing(cast(TimeJob, job), events, commands)
    elif mode == "profile":
        run_profile(cast(ProfileJob, job), events, commands)
    elif mode == "check":
        run_check(cast(CheckJob, job), events)
    elif mode == "output":
        run_output(cast(OutputJob, job), events)
    elif mode == "seed":
        run_seed(cast(SeedJob, job), events)
    elif mode == "fuzz":
        run_fuzz(cast(FuzzJob, job), events)
    elif mode == "describe":
        run_describe(cast(DescribeJob, job), events)
    elif mode == "packages":
        run_packages(cast(PackagesJob, job), events)
    elif mode == "count":
        run_count(cast(CountJob, job), events)
    else:
        raise _UnknownJob(f"unknown job mode {mode!r}: is this worker's perflab another version than the parent's?")
