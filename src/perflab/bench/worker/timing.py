"""The "time" job (perflab.bench.protocol): set up one contender, report "ready", then one warmup or
value per command from the parent, and the integrity checks after the last value. Standard library only."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from perflab.bench.worker import integrity, speed_probe, timing_checks
from perflab.bench.worker.events import EventStream
from perflab.bench.worker.region import (
    calibrate_region,
    last_cpu_seconds,
    max_loops,
    measured_region,
    measured_region_fresh,
)
from perflab.bench.worker.user_code import UserCodeError, fresh_input, load_case

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import TextIO

    from perflab.bench.protocol import TimeJob, ValueEvent

# CPU time used outside the timed thread beyond this share of the elapsed time (plus a little for
# the interpreter's own housekeeping) means a contender left work running.
_BACKGROUND_CPU_SHARE = 0.05
_BACKGROUND_CPU_SLACK = 0.002
_ENDING_THREADS_GRACE = 0.2  # seconds for threads that a call told to stop to end (a loaded machine is slow)


class BackgroundWatch:
    """What a contender leaves running beside the timed thread while it is measured: threads that
    use CPU, child processes. On the pinned CPU they would take time from every other worker."""

    def __init__(self) -> None:
        self._wall, self._process, self._thread = time.perf_counter(), time.process_time(), time.thread_time()

    def wall(self) -> float:
        return time.perf_counter() - self._wall

    def report(self) -> str | None:
        """One line saying what runs in the background, None if nothing does. Other threads' CPU
        time counts only when one of them outlives the calls: a call that runs a thread pool and
        ends it before it returns (concurrent_imap) did that work inside the call; its threads,
        told to stop, get a moment to end (multiprocessing's ThreadPool does not join them)."""
        outside = (time.process_time() - self._process) - (time.thread_time() - self._thread)
        wall = self.wall()
        found = []
        if outside > _BACKGROUND_CPU_SHARE * wall + _BACKGROUND_CPU_SLACK:
            others = [t for t in threading.enumerate() if t is not threading.current_thread()]
            deadline = time.perf_counter() + _ENDING_THREADS_GRACE
            for thread in others:
                thread.join(max(0.0, deadline - time.perf_counter()))
            left = [thread.name for thread in others if thread.is_alive()]
            if left:
                found.append(
                    f"it used {outside / wall:.0%} of a CPU outside the timed thread"
                    f" (threads left running: {', '.join(left[:3])})"
                )
        children = _child_processes()
        if children:
            found.append(f"it left {len(children)} child process(es) running (pid {', '.join(children[:3])})")
        return "; ".join(found) or None


class RunQueueWait:
    """How long the timed thread was runnable but waiting for a CPU (other processes had it): the
    scheduler's own count, Linux's /proc/thread-self/schedstat (its second field, in ns). Wall time
    minus CPU time is this wait plus sleeping and blocking; with it, the parent tells a busy machine
    from an operation that waits. ``seconds()`` is None where the file cannot be read."""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self._fd = None

    def seconds(self) -> float | None:
        if self._fd is None:
            return None
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return None


def _child_processes() -> list[str]:
    """This process's live children (Linux /proc; elsewhere none are seen)."""
    found = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as listing:
                found += listing.read().split()
    except OSError:
        return []
    return found


def run_timing(job: TimeJob, events: EventStream, commands: TextIO) -> None:
    """Set up, report "ready", then measure one warmup or value per command until "exit".

    Beside the values (perflab.bench.worker.timing_checks): the first call on a fresh copy of the
    input (after one on a variant of it, which pays the process's one-time set-up), the harness's
    floor, and after the last value whether the input changed and whether the contender still
    gives the reference's output.
    """
    pin(job["cpu"])
    modules_before = set(sys.modules)
    benchmark, case, argument = load_case(job["file"], job["case"])
    contender = benchmark.contenders[job["contender"]]
    fresh = benchmark.mutates_input
    input_digest = integrity.digest(argument)
    try:
        operation = contender.build()
        # A pyperf script's work beside its calls (a server thread, a pool kept open) is accepted, as pyperf does.
        beside = getattr(operation, "works_beside_its_calls", False)
        watch = BackgroundWatch()
        others = [other for name, other in benchmark.cases.items() if name != case.name]
        first_call = timing_checks.first_call(
            operation, fresh_input(case, argument, job["file"]), others[0].build if others else None
        )
        if fresh:
            limit = timing_checks.fresh_loops_limit(argument)

            def value(loops: int) -> float:
                return measured_region_fresh(
                    operation, [fresh_input(case, argument, job["file"]) for _ in range(loops)]
                )

        else:
            limit = max_loops(operation, argument)

            def value(loops: int) -> float:
                return measured_region(operation, argument, loops)

        # The parent re-sizes loops from the last round's values; the operation's limit still holds
        # (a limit of one: nothing to size, and a call may be a whole process, asv's timeraw_).
        loops = min(
            limit,
            job.get("loops") or (1 if limit == 1 else calibrate_region(value, job["value_time"], limit, first_call)),
        )
        floor = timing_checks.floor(
            lambda function, calls: (
                measured_region_fresh(function, [argument] * calls)
                if fresh
                else measured_region(function, argument, calls)
            ),
            loops,
        )
        events.send(
            {
                "event": "ready",
                "loops": loops,
                "first_call": first_call,
                "first_call_overhead": timing_checks.first_call_overhead(argument),
                "floor": floor,
                "calibration_seconds": max(0.0, watch.wall() - first_call),  # what calibrating cost the budget
                "background": None if beside else watch.report(),
                "modules": sorted({name.partition(".")[0] for name in set(sys.modules) - modules_before}),
            }
        )
        timed = 0
        queue = RunQueueWait()
        for line in commands:
            command = json.loads(line)
            kind = command["do"]
            if kind == "exit":
                break
            calls = min(limit, command.get("loops") or loops)
            watch = BackgroundWatch()
            waited_before = queue.seconds()
            measured = value(calls) / calls
            waited_after = queue.seconds()
            timed += kind == "value"
            # A command contender (perflab.bench.commands) also reports its processes' CPU time and memory.
            extra = operation.take_extra() if hasattr(operation, "take_extra") else None
            sent: ValueEvent = {
                "event": kind,
                "value": measured,
                "cpu": last_cpu_seconds() / calls,
                "loops": calls,
                "background": None if beside else watch.report(),
                "probe": speed_probe.probe(),  # after the value, outside it: the machine's speed now
            }
            if waited_before is not None and waited_after is not None:
                sent["waited"] = (waited_after - waited_before) / calls
            if extra:
                sent["extra"] = extra
            events.send(sent)
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error
    checks = timing_checks.after_values(
        benchmark,
        job.get("reference"),
        operation,
        argument,
        input_digest,
        lambda: fresh_input(case, argument, job["file"]),
        check_output=timed > 0,  # no timed value (the budget ran out): no timed state to check, no more calls
    )
    events.send({"event": "integrity", **checks})


def pin(cpu: int | None) -> None:
    """Run on ``cpu`` (when given and the platform can pin)."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
