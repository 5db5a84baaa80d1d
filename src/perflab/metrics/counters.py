"""Hardware and kernel counters per call from ``perf stat``, where the machine provides them.

The worker runs twice under ``perf stat -x,``: with N calls and with 0 calls (same start-up,
set-up and warm-up), and each counter per call is the difference divided by N. Virtual machines
often expose no hardware counters; perf then prints ``<not supported>`` for them (and still
counts kernel events such as context switches and page faults). That is reported as one line,
never as a failure.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from perflab.metrics.count_jobs import MetricUnavailable, Target, loops_for, require, run_counted_worker, warmups_for

EVENTS = ("cycles", "instructions", "branch-misses", "cache-misses", "context-switches", "page-faults")
HARDWARE = ("cycles", "instructions", "branch-misses", "cache-misses")
NATIVE_SECONDS = 0.2  # long enough for counters to dwarf the process's start-up differences


@dataclass
class CounterReading:
    case: str
    contender: str
    loops: int
    per_call: dict[str, float] = field(default_factory=dict)  # event -> count per call (supported ones)
    unsupported: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ipc(self) -> float | None:
        """Instructions per cycle, when both are counted."""
        cycles = self.per_call.get("cycles")
        return self.per_call["instructions"] / cycles if cycles and "instructions" in self.per_call else None


def probe() -> tuple[bool, str | None]:
    """(whether ``perf stat`` runs here at all, why it has no hardware counters here or None)."""
    try:
        perf = require("perf", "linux-perf")
    except MetricUnavailable as missing:
        return False, str(missing)
    import subprocess

    completed = subprocess.run([perf, "stat", "-x,", "-e", ",".join(HARDWARE), "true"], capture_output=True, text=True)
    readings = parse(completed.stderr)
    if completed.returncode != 0 or not readings:  # e.g. perf_event_paranoid forbids it
        lines = completed.stderr.strip().splitlines()
        return False, lines[0] if lines else f"exit code {completed.returncode}"
    unsupported = [event for event in HARDWARE if readings.get(event) is None]
    return True, f"<not supported> for {', '.join(unsupported)}" if len(unsupported) == len(HARDWARE) else None


def parse(text: str) -> dict[str, float | None]:
    """``perf stat -x,`` lines -> event -> count (None: not supported or not counted)."""
    readings: dict[str, float | None] = {}
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) < 3 or line.startswith("#"):
            continue
        value, event = fields[0], fields[2].split(":")[0]  # "cycles:u" -> "cycles"
        try:
            readings[event] = float(value)
        except ValueError:  # "<not supported>", "<not counted>"
            readings[event] = None
    return readings


def measure(targets: list[Target], timeout: float = 600.0, loops: int | None = None) -> list[CounterReading]:
    perf = require("perf", "linux-perf")
    results = []
    for target in targets:
        reading = CounterReading(
            target.case, target.contender, loops or loops_for(target.time_per_call, NATIVE_SECONDS)
        )
        warmups = warmups_for(reading.loops)  # the same in both runs: only the counted calls differ
        runs = [_perf_run(perf, target, calls, warmups, timeout) for calls in (reading.loops, 0)]
        error = next((error for _, error in runs if error), None)
        if error:
            reading.error = error
        else:
            (full, _), (empty, _) = runs
            for event in EVENTS:
                counted, baseline = full.get(event), empty.get(event)
                if counted is None or baseline is None:
                    reading.unsupported.append(event)
                else:
                    reading.per_call[event] = (counted - baseline) / reading.loops
        results.append(reading)
    return results


def _perf_run(
    perf: str, target: Target, loops: int, warmups: int, timeout: float
) -> tuple[dict[str, float | None], str | None]:
    with tempfile.TemporaryDirectory(prefix="perflab-perf-") as directory:
        out = Path(directory) / "perf.csv"
        wrapper = [perf, "stat", "-x,", "-o", str(out), "-e", ",".join(EVENTS), "--"]
        report = run_counted_worker(target, loops, timeout, wrapper, warmups=warmups)
        if report.error:
            return {}, report.error
        return parse(out.read_text() if out.exists() else ""), None
