"""Scripted workers for tests of the runner's own rules: they answer the runner's jobs through its
worker seam (perflab.measure.launcher.Worker) with chosen values and move a fake clock by the time
they stand for (as pyperf's tests fake the clock), so the stopping rule, the interleaving, the
deadline, a worker that fails and Ctrl-C are tested without starting a process or waiting.
Tests that use them take the ``no_processes`` fixture."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from perflab.measure import runner
from perflab.measure.launcher import JobOutcome
from perflab.measure.runner import run_sides
from perflab.measure.settings import Settings
from perflab.measure.sides import contender_sides
from perflab.results.model import RunResult

LOOPS = 1000  # the loop count every scripted worker calibrates to
# Scripted values do not depend on the value length, so its check settles in the first round.
CALIBRATION_ROUNDS = 1
SETUP_SECONDS = 0.01  # what starting and calibrating one worker costs on the fake clock


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class ScriptedWorker:
    """Answers one job as a real worker would, with values from ``lab.value``; implements the
    runner's view of a worker (perflab.measure.launcher.Worker)."""

    def __init__(self, lab: Lab, job: dict[str, Any]):
        self.lab, self.job = lab, job
        self.outcome = JobOutcome()
        self.closed = False
        self.values = 0  # values this worker gave

    def wait_for(self, kind: str) -> dict[str, Any] | None:
        mode = self.job["mode"]
        if kind == "ready":
            slow = self.lab.slow_call
            if isinstance(slow, dict):
                slow = slow.get(self.job["contender"])
            self.lab.clock.now += SETUP_SECONDS + (slow or 0.0)
            ready = {
                "loops": self.job["loops"] or (1 if slow else LOOPS),
                "first_call": slow or 1e-3,
                "floor": 1e-9,
                "modules": self.lab.modules,
            }
            return self._event("ready", **ready)
        assert kind == "done", kind
        if mode == "check":
            self.lab.clock.now += self.lab.check_seconds
            self._event("work", work=None)
            self._event(
                "check",
                equivalent=True,
                difference=None,
                note=None,
                comparator="==",
                mutation=None,
                shared=None,
                output=None,
            )
        return self._event("done")

    def request_event(self, kind: str, loops: int | None = None) -> dict[str, Any] | None:
        contender = self.job["contender"]
        self.lab.requests.append((self.lab.round_of(self), contender, kind))
        failure = self.lab.fail(self, kind)
        if failure is not None:
            self.outcome.error = failure
            return None
        calls = loops or self.job["loops"] or (1 if self.lab.slow_call else LOOPS)  # round 0: the ready loops
        value = self.lab.value(self.job["case"], contender, self.values)
        value += self.lab.per_value.get(contender, 0.0) / calls  # work each value does once
        self.values += kind == "value"
        self.lab.clock.now += value * calls
        cpu = value * self.lab.cpu_share.get(contender, 1.0)
        waited = 0.0 if contender in self.lab.sleeping else value - cpu  # else it waited for a CPU
        return self._event(kind, value=value, cpu=cpu, loops=calls, waited=waited, background=None)

    def close(self) -> JobOutcome:
        if self.job["mode"] == "time" and self.outcome.ok:
            self._event("integrity", input_changed=None, output_wrong=None)
        self.closed = True
        return self.outcome

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {"event": kind, **fields}
        self.outcome.events.append(event)
        return event


class Lab:
    """The scripted workers of one run: their values, failures, and what the runner asked for."""

    def __init__(
        self,
        value: Callable[[str, str, int], float],
        fail: Callable[[ScriptedWorker, str], str | None] = lambda worker, kind: None,
    ):
        self.value, self.fail = value, fail  # (case, contender, index of the value) -> s/call
        self.per_value: dict[str, float] = {}  # contender -> s of work each value does once, whatever its calls
        self.cpu_share: dict[str, float] = {}  # contender -> share of a value's wall time its thread ran (1)
        self.sleeping: set[str] = set()  # contenders whose thread slept, not waited for a CPU, the rest
        self.modules: list[str] = []  # the top-level modules each timing worker says it imported
        self.check_seconds = 0.0  # fake seconds each equivalence check job takes
        # Seconds of a call that is a whole value (the workers calibrate to one call a value, and
        # time the process's first call): None, calls of ~1 us, many a value.
        self.slow_call: float | dict[str, float] | None = None  # or per contender
        self.clock = Clock()
        self.started: list[ScriptedWorker] = []
        self.requests: list[tuple[int, str, str]] = []  # (round, contender, "warmup" | "value")

    def start(
        self, job: dict[str, Any], timeout: float, python: str, hash_seed: str | None, budget: object = None
    ) -> ScriptedWorker:
        worker = ScriptedWorker(self, job)
        self.started.append(worker)
        return worker

    def timing_workers(self) -> list[ScriptedWorker]:
        return [worker for worker in self.started if worker.job["mode"] == "time"]

    def round_of(self, worker: ScriptedWorker) -> int:
        """Rounds count the timing workers started for a (case, contender)."""
        same = [w for w in self.timing_workers() if (w.job["case"], w.job["contender"]) == self.key(worker)]
        return same.index(worker)

    @staticmethod
    def key(worker: ScriptedWorker) -> tuple[str, str]:
        return worker.job["case"], worker.job["contender"]

    def run(self, settings: Settings, cases: list[str], contenders: list[str], compares: bool = True) -> RunResult:
        return run_sides(
            "scripted",
            contender_sides("bench.py", contenders),
            cases,
            settings,
            start=self.start,
            clock=self.clock,
            compares=compares,
        )


@pytest.fixture
def no_processes(monkeypatch):
    """Nothing here may start a process: the scripted workers stand in for all of them, and the
    result's metadata (which asks the interpreter about itself in a subprocess) is left empty."""
    monkeypatch.setattr(runner.metadata, "collect", lambda file, python: {})

    def forbidden(*args, **kwargs):
        raise AssertionError(f"a test of the runner's rules started a process: {args[0]!r}")

    monkeypatch.setattr(subprocess, "Popen", forbidden)


def noisy(spread: float, seed: int = 0, times: dict[str, float] | None = None) -> Callable[[str, str, int], float]:
    """Values around ``times[contender]`` (default 1 us), each off by up to +-``spread`` (relative)."""
    generator = random.Random(seed)
    times = times or {}
    return lambda case, contender, index: times.get(contender, 1e-6) * (1 + generator.uniform(-spread, spread))


QUICK = {"warmups": 1, "values": 10, "value_time": 0.001, "timeout": 5.0}
