"""One way to run perflab in the tests: the real command line in a real subprocess, with one quick
preset for the timing verbs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

# End-to-end runs stop by a rule, not by the clock, so that a loaded CI machine does the same work,
# only later: exactly 2 rounds (the hidden --debug-rounds, as pyperf's --debug-single-value) of 5
# values at a loose precision.
# --timeout comes last: some tests replace its value (QUICK[:-1]) or drop it (QUICK[:-2]).
QUICK = [
    "--precision", "50", "--max-time", "60", "--values", "5", "--value-time", "0.002", "--debug-rounds", "2",
    "--timeout", "30",
]  # fmt: skip
# For a test that asserts a verdict: perflab's own rule at the loose precision, 5 rounds at least
# and more while a ratio's interval is wider than ±50% (a loaded machine needs them: a fixed 5
# rounds under a load of 9 left a 3x slowdown undetected).
VERDICT = [option for option in QUICK if option not in ("--debug-rounds", "2")]
# For a test of --metric instructions or cache: 2 valgrind processes per cell, not 3 (the hidden
# --debug-counts), each seconds of CPU; two still show whether the processes agree.
COUNTED = ["--debug-counts", "2"]
# For a test whose subject is not that agreement (a gate on a counted change): 1 process per cell.
# Agreement stays asserted by the tests that count with COUNTED.
COUNTED_ONCE = ["--debug-counts", "1"]


def run_perflab(*args, timeout=300, env=None, **kwargs) -> subprocess.CompletedProcess:
    """``perflab ARGS`` in a real subprocess (``env``: variables to set or change, None to unset
    one; ``cwd`` etc. as for subprocess.run)."""
    environment = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "perflab", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={name: value for name, value in environment.items() if value is not None},
        **kwargs,
    )


def load_json(path):
    return json.loads(Path(path).read_text())


def start_until(args: list, cwd: Path, phase: str, environment: dict[str, str]) -> tuple[subprocess.Popen, list[str]]:
    """perflab started, returned once its plain progress lines (stderr is not a terminal) show
    ``phase``; with the list its stderr lines keep arriving in."""
    process = subprocess.Popen(
        [sys.executable, "-m", "perflab", *map(str, args)],
        cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
    )  # fmt: skip
    seen, lines = threading.Event(), []

    def watch() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if line.startswith(phase):
                seen.set()

    threading.Thread(target=watch, daemon=True).start()
    if not seen.wait(300):
        process.kill()
        raise AssertionError(f"perflab never reached {phase!r}: {''.join(lines)[-2000:]}")
    return process, lines
