"""The "profile" job (perflab.bench.protocol): keep the operation running inside ``measured_region``
for as long as the parent's sampler records, one run per command. Standard library only."""

from __future__ import annotations

import json
import os
import sysconfig
import time

from perflab.bench.worker.events import EventStream
from perflab.bench.worker.region import calibrate, measured_region
from perflab.bench.worker.timing import pin
from perflab.bench.worker.user_code import UserCodeError, load_case

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import TextIO

    from perflab.bench.protocol import ProfileJob


def run_profile(job: ProfileJob, events: EventStream, commands: TextIO) -> None:
    """Set up (on the job's "cpu", if given: the parent pins the worker to the profiled CPU once it
    is ready), report "ready", then keep the operation running for ``duration`` per command."""
    pin(job["cpu"])
    benchmark, _, argument = load_case(job["file"], job["case"])
    contender = benchmark.contenders[job["contender"]]
    try:
        operation = contender.build()
        loops = calibrate(operation, argument, job["value_time"])
        if os.environ.get("PERFLAB_PERF_JITDUMP"):  # perf_jitdump.ENV: 3.12 under perf (its imports only then)
            from perflab.bench.worker import perf_jitdump

            perf_jitdump.start()  # the unwinding information 3.12's -X perf lacks, written at exit
        events.send({"event": "ready", "loops": loops, "pid": os.getpid(), "paths": sysconfig.get_paths()})
        for line in commands:
            if json.loads(line)["do"] == "exit":
                return
            sampler = None
            inprocess = job.get("inprocess")
            if inprocess:
                from perflab.bench.worker.inprocess_sampler import InProcessSampler

                sampler = InProcessSampler(inprocess["rate"], inprocess["mode"], inprocess.get("lines", False))
                sampler.start()
            values = []
            deadline = time.perf_counter() + job["duration"]
            while time.perf_counter() < deadline:
                values.append(measured_region(operation, argument, loops) / loops)
            events.send(
                {
                    "event": "profile",
                    "value": sorted(values)[len(values) // 2],
                    "values": values,
                    "stacks": sampler.stop() if sampler else None,
                }
            )
    except Exception as error:
        raise UserCodeError("contender", contender.name, error, job["file"]) from error
