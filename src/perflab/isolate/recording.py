"""Running a Python program once more with a recorder on one function (perflab.bench.worker.call_recorder).

The program runs as ``python app.py ...`` would (through perflab.bench.worker.program), its output and
exit status its own; the recorder writes NAME.pickle (the pickled calls) and NAME.json (what was
seen, copied, refused, returned, and the time spent copying) next to the benchmark file to be.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perflab.isolate import DEFAULT_CALLS, DEFAULT_MAX_BYTES
from perflab.measure.launcher import worker_environment
from perflab.profile.program import ProgramError, exit_status, python_command


class RecordingError(Exception):
    """Nothing usable was recorded; the message says why and what to do."""


@dataclass
class Recording:
    function: str
    command: list[str]
    inputs: Path  # the pickled calls: a list of pickle bytes, each (args, kwargs)
    summary: dict[str, Any]  # perflab.bench.worker.call_recorder's account of the run
    exit_status: int
    wall_seconds: float  # the program's whole run, recorder included, as seen from here

    @property
    def overhead(self) -> str:
        """The recording's cost, in a sentence."""
        s = self.summary
        share = s["copy_seconds"] / s["program_seconds"] if s["program_seconds"] else 0.0
        return (
            f"hook {s['hook']}: {s['calls_seen']} calls seen, {s['calls_copied']} copied in "
            f"{s['copy_seconds'] * 1e3:.1f} ms ({share:.1%} of the program's {s['program_seconds']:.2f} s"
            + (
                "; sys.setprofile also slows every other call, which this does not count"
                if s["hook"] == "sys.setprofile"
                else ""
            )
            + "; benchmarks/program_profile.py measures the whole slowdown)"
        )


def record_calls(
    command: Sequence[str], function: str, inputs: Path, calls: int = DEFAULT_CALLS, max_bytes: int = DEFAULT_MAX_BYTES
) -> Recording:
    """Run ``command`` (a Python program) recording up to ``calls`` calls of ``function`` into ``inputs``
    (created: it must not exist; removed again when nothing usable was recorded)."""
    program = python_command(command)
    if program is None:
        raise ProgramError(f"{command[0]}: isolate runs Python programs (python app.py ... or python -m module ...)")
    with tempfile.TemporaryDirectory(prefix="perflab-isolate-") as directory:
        spec, summary_file = Path(directory) / "spec.json", Path(directory) / "summary.json"
        spec.write_text(
            json.dumps(
                {
                    "function": function,
                    "calls": calls,
                    "max_bytes": max_bytes,
                    "inputs": str(inputs),
                    "summary": str(summary_file),
                }
            )
        )
        started = time.perf_counter()
        try:
            returncode = subprocess.run(
                program.launcher("--record", str(spec)), env=worker_environment(program.python), check=False
            ).returncode
        except OSError as error:
            raise ProgramError(f"cannot run {program.python}: {error.strerror or error}") from error
        wall = time.perf_counter() - started
        try:
            summary = json.loads(summary_file.read_text())
        except (OSError, ValueError):
            summary = {
                "error": f"the program ended (exit status {exit_status(returncode)}) before the recorder could "
                "write what it recorded (it was killed, or called os._exit)"
            }
    if "error" in summary or not summary["calls_kept"]:
        inputs.unlink(missing_ok=True)
    if "error" in summary:
        raise RecordingError(summary["error"])
    if not summary["calls_kept"]:
        refused = "; ".join(f"{count} {reason}" for reason, count in summary["refused"].items())
        raise RecordingError(
            f"{function}: {summary['calls_seen']} calls seen, none recorded"
            + (f" ({refused})" if refused else " (is it called by this run of the program?)")
        )
    return Recording(function, list(command), inputs, summary, exit_status(returncode), wall)
