"""Worker processes seen from the parent: start one, talk to it, and read back what it reported.

Every failure mode of user code ends here as data, never as an exception: the contender raised,
the process was killed by a signal, it exceeded its time limit, or it exited without a word.

``Worker`` is the seam the measuring code talks through: ``WorkerProcess`` is the real one (a
``python -m perflab.bench.worker`` process); anything that answers jobs (perflab.bench.protocol)
the same way can stand in for it, e.g. a scripted worker that tests the runner's rules in-process.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, cast, overload

import perflab
from perflab.bench.protocol import (
    AllocationsEvent,
    CheckEvent,
    Command,
    CountEvent,
    DescribeEvent,
    ErrorEvent,
    FuzzEvent,
    IntegrityEvent,
    Job,
    OutputEvent,
    PackagesEvent,
    ProfileEvent,
    ProfileJob,
    ReachEvent,
    SeedEvent,
    WorkEvent,
)
from perflab.measure.budget import Budget

_STDERR_TAIL_LINES = 5


@dataclass
class JobOutcome:
    events: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # one line: what went wrong, None when the job succeeded
    location: str | None = None  # file:line in user code, when known
    over_budget: bool = False  # stopped because the run's time budget ran out (perflab.measure.budget)

    @property
    def ok(self) -> bool:
        return self.error is None

    # The events a job reports, typed by kind (perflab.bench.protocol) so that mypy sees their fields.
    @overload
    def of(self, kind: Literal["work"]) -> list[WorkEvent]: ...
    @overload
    def of(self, kind: Literal["check"]) -> list[CheckEvent]: ...
    @overload
    def of(self, kind: Literal["output"]) -> list[OutputEvent]: ...
    @overload
    def of(self, kind: Literal["seed"]) -> list[SeedEvent]: ...
    @overload
    def of(self, kind: Literal["fuzz"]) -> list[FuzzEvent]: ...
    @overload
    def of(self, kind: Literal["describe"]) -> list[DescribeEvent]: ...
    @overload
    def of(self, kind: Literal["packages"]) -> list[PackagesEvent]: ...
    @overload
    def of(self, kind: Literal["integrity"]) -> list[IntegrityEvent]: ...
    @overload
    def of(self, kind: Literal["profile"]) -> list[ProfileEvent]: ...
    @overload
    def of(self, kind: Literal["count"]) -> list[CountEvent]: ...
    @overload
    def of(self, kind: Literal["allocations"]) -> list[AllocationsEvent]: ...
    @overload
    def of(self, kind: Literal["reach"]) -> list[ReachEvent]: ...
    @overload
    def of(self, kind: Literal["error"]) -> list[ErrorEvent]: ...
    def of(self, kind: str) -> list[Any]:
        return [event for event in self.events if event["event"] == kind]


class Worker(Protocol):
    """A worker running one job: what the measuring code needs of it.

    Started with the job (a ``StartWorker``); ``wait_for`` reads events until one of a kind,
    ``request_event`` sends one command ("warmup", "value", "profile") and reads its reply,
    ``close`` ends the worker (asking it to exit, else killing it) and returns all it reported.
    A failure is never raised: the methods return None and ``outcome.error`` says why.
    """

    outcome: JobOutcome

    def wait_for(self, kind: str) -> dict[str, Any] | None: ...

    def request_event(self, kind: str, loops: int | None = None) -> dict[str, Any] | None: ...

    def close(self) -> JobOutcome: ...


# Starts a worker: (job, timeout in seconds, python, PYTHONHASHSEED or None to inherit, the run's
# budget or None) -> Worker.
StartWorker = Callable[[Job, float, str, "str | None", "Budget | None"], Worker]

# What a worker of each job mode is doing while perflab waits on it, for the message of a worker
# stopped by the budget (a timing worker waiting for "ready" is being set up).
_DOING = {
    "check": "checking its output against the reference's",
    "output": "computing the output the other sides are checked against",
    "seed": "checking its output under another hash seed",
    "fuzz": "fuzzing it against the reference",
    "describe": "loading the benchmark file",
    "packages": "reading the versions of the packages it imported",
    "time": "timing it",
    "profile": "profiling it",
    "allocations": "profiling its allocations",
    "count": "counting",
    "reach": "tracing the functions it runs",
}
_SETTING_UP = {"time": "setting it up", "profile": "setting it up for profiling"}  # waiting for "ready"


class WorkerProcess:
    """A live ``python -m perflab.bench.worker`` process that answers one request at a time.

    Every wait has a deadline of ``timeout`` seconds, and none outlasts the run's ``budget``; a
    worker that misses it is killed (with its children) and the outcome says so. Standard error goes
    to a file, so a chatty benchmark can never block on a full pipe.
    """

    def __init__(
        self,
        job: Job,
        timeout: float,
        python: str = sys.executable,
        hash_seed: str | None = None,
        budget: Budget | None = None,
        extra_env: dict[str, str] | None = None,
        wrapper: Sequence[str] = (),
    ):
        """``extra_env``, ``wrapper``: the worker started as ``wrapper... python -m perflab.bench.worker`` with
        these variables set (a profiler that starts its target: perflab.profile.perf_sampler)."""
        self.timeout, self.budget, self.mode = timeout, budget, job["mode"]
        # A profiling run's duration, fixed in its job.
        self._duration = cast(ProfileJob, job)["duration"] if job["mode"] == "profile" else 0.0
        self._requested = 0.0  # when the last command was sent (time.monotonic())
        self._wrapped = bool(wrapper)
        self.outcome = JobOutcome()
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - open for the worker's life, closed in close()
        self._buffer = b""
        self._done = False
        self._process = subprocess.Popen(
            [*wrapper, python, "-m", "perflab.bench.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=_with_extra(_with_hash_seed(worker_environment(python), hash_seed), extra_env),
            start_new_session=True,
        )  # own process group: a kill takes its children
        _live.add(self)  # from its first moment: whatever stops perflab, it does not outlive perflab
        self._send(job)

    def wait_for(self, kind: str) -> dict[str, Any] | None:
        """Read events until one of ``kind`` arrives; None (and ``outcome.error`` set) on failure."""
        deadline = time.monotonic() + self.timeout
        while self.outcome.ok:
            event = self._next_event(deadline, kind)
            if event is None:
                return None
            self.outcome.events.append(event)
            if event["event"] == "error":
                self.outcome.error, self.outcome.location = event["message"], event.get("location")
            elif event.get("background"):
                # Killed at once: on the shared, pinned CPU it would slow the other contenders.
                self._kill()
                self.outcome.error = (
                    f"not timed: work left running after its calls returned ({event['background']}) "
                    "would take CPU time from the other contenders' workers; join threads "
                    "and wait for child processes before returning"
                )
            elif event["event"] == kind:
                self._done = kind == "done"
                return event
        return None

    def request_event(self, kind: str, loops: int | None = None) -> dict[str, Any] | None:
        """Ask for one measurement ("warmup", "value", "profile"), of ``loops`` calls when given
        (a timing worker's value; else its calibrated loops); its whole event, or None."""
        self._requested = time.monotonic()
        command = Command(do=kind) if loops is None else Command(do=kind, loops=loops)
        if not self.outcome.ok or not self._send(command):
            self.wait_for(kind)  # collects the reason the worker is gone
            return None
        return self.wait_for(kind)

    def close(self) -> JobOutcome:
        """Let the worker exit (or kill it) and return everything it reported."""
        if self.outcome.ok and not self._done:
            self._send(Command(do="exit"))
            self.budget = None  # its last checks (integrity) run past the budget: within --timeout only
            self.wait_for("done")
            if self._wrapped:  # the wrapper ends when the worker does, and may still have work then (its output)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(self.timeout)
        self._kill()
        self._process.wait()
        self._stderr.close()
        _live.discard(self)
        return self.outcome

    def _send(self, message: Job | Command) -> bool:
        try:
            assert self._process.stdin is not None  # started with stdin=PIPE
            self._process.stdin.write((json.dumps(message) + "\n").encode())
            self._process.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def _next_event(self, deadline: float, kind: str) -> dict[str, Any] | None:
        budget = self.budget
        if budget is not None and self.mode == "profile" and kind != "ready":
            # Once set up, a profiling run lasts the duration its job fixed even past the budget;
            # one that outlasts twice that and a second (the last calls and the stacks' transfer
            # under load), as a call that hangs does, is then stopped by the budget.
            budget = replace(budget, ends=max(budget.ends, self._requested + 2 * self._duration + 1))
        if budget is not None and budget.ends >= deadline:
            budget = None
        while b"\n" not in self._buffer:
            remaining = (budget.ends if budget else deadline) - time.monotonic()
            chunk = self._read_chunk(remaining) if remaining > 0 else None
            if chunk is None:
                self._kill()
                if budget:
                    doing = _SETTING_UP.get(self.mode, _DOING[self.mode]) if kind == "ready" else _DOING[self.mode]
                    self.outcome.error, self.outcome.over_budget = budget.ran_out(doing), True
                else:
                    self.outcome.error = f"timed out after {self.timeout:g} s (per-job timeout, see --timeout)"
                return None
            if chunk == b"":
                self._process.wait()
                self.outcome.error = self._exit_reason()
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _read_chunk(self, timeout: float) -> bytes | None:
        """Bytes from the worker's stdout, b'' at end of file, None if nothing came in time."""
        stdout = self._process.stdout
        assert stdout is not None  # started with stdout=PIPE
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                return None
        return os.read(stdout.fileno(), 65536)

    def _exit_reason(self) -> str:
        code = self._process.returncode
        if code is not None and code < 0:
            return f"worker killed by signal {signal.Signals(-code).name}"
        self._stderr.seek(0)
        tail = " | ".join(self._stderr.read().strip().splitlines()[-_STDERR_TAIL_LINES:])
        if not tail:  # no traceback: the process was ended on purpose
            return (
                f"worker exited with code {code} before finishing its job, without an error: does the "
                "benchmark call os._exit() (or end the process another way)?"
            )
        return f"worker exited with code {code}: {tail}"

    def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)


# Workers not closed yet; any left when perflab exits (an exception, a signal between two steps)
# are killed then.
_live: set[WorkerProcess] = set()


@atexit.register
def _kill_live_workers() -> None:
    workers = list(_live)
    for worker in workers:
        worker._kill()
    # and gone before perflab is: a SIGKILLed process on a busy CPU can still be running for a moment
    # after its kill was sent, and whoever waits for perflab must find none of its workers left
    for worker in workers:
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker._process.wait(5)


@functools.cache
def worker_environment(python: str) -> dict[str, str] | None:
    """The environment for workers under ``python``: None (inherit) for perflab's own
    interpreter; for another one, a PYTHONPATH that exposes only the perflab package (the
    worker side is standard library only), not this interpreter's site-packages.

    Paths are compared without resolving links: a virtual environment's python is a link to its
    base interpreter, but it is another environment, one that need not have perflab installed."""
    if os.path.abspath(shutil.which(python) or python) == os.path.abspath(sys.executable):
        return None
    exposed = tempfile.mkdtemp(prefix="perflab-worker-path-")
    atexit.register(shutil.rmtree, exposed, ignore_errors=True)
    os.symlink(Path(perflab.__file__).resolve().parent, Path(exposed) / "perflab")
    inherited = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": exposed + (os.pathsep + inherited if inherited else "")}


def _with_extra(environment: dict[str, str] | None, extra: dict[str, str] | None) -> dict[str, str] | None:
    """``environment`` (None: this process's) with ``extra`` set, when given."""
    if not extra:
        return environment
    return {**(environment if environment is not None else os.environ), **extra}


def _with_hash_seed(environment: dict[str, str] | None, hash_seed: str | None) -> dict[str, str] | None:
    """``environment`` (None: this process's) with PYTHONHASHSEED set, when ``hash_seed`` is given."""
    return _with_extra(environment, None if hash_seed is None else {"PYTHONHASHSEED": hash_seed})


def run_job(
    job: Job,
    timeout: float,
    python: str = sys.executable,
    hash_seed: str | None = None,
    start: StartWorker = WorkerProcess,
    budget: float | Budget | None = None,
) -> JobOutcome:
    """Run a one-shot job (such as an equivalence check) to completion in a worker from ``start``;
    ``hash_seed``: the worker's PYTHONHASHSEED (None: inherited); ``budget``: the run's --max-time,
    which the job may not outlast, from now or (a Budget) from when it started (None: only
    ``timeout`` bounds it)."""
    if isinstance(budget, (int, float)):
        budget = Budget.starting_now(budget)
    worker = start(job, timeout, python, hash_seed, budget)
    try:
        worker.wait_for("done")
    finally:  # also on Ctrl-C: never leave a worker behind
        outcome = worker.close()
    return outcome
