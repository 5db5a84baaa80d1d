"""Running a Python program once more with a recorder on one function (perflab.bench.worker.call_recorder).

The program runs as ``python app.py ...`` would (through perflab.bench.worker.program), its output and
exit status its own; the recorder writes NAME.pickle (the pickled calls) and NAME.json (what was
seen, copied, refused, returned, and the time spent copying) next to the benchmark file to be.
"""

from __future__ import annotations

import ast
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
from perflab.profile.program import ProgramError, PythonCommand, exit_status, python_command


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


def importable_function(command: Sequence[str], function: str) -> tuple[str, str | None]:
    """(``module:qualname`` as the benchmark imports it, the script file the function is defined in
    when it is the running script's own, else None).

    While ``python app.py`` runs, its functions are ``__main__.NAME``; the benchmark imports the
    script as a module under its file name (``app:NAME``), as ``--function app:NAME`` or
    ``__main__:NAME`` ask. Importing it must not run the program, so its top-level code must be
    under ``if __name__ == "__main__":`` (else a RecordingError says so)."""
    program = _python_program(command)
    module, _, qualname = function.partition(":")
    if program.target[0] == "-m":
        if module == "__main__":
            raise RecordingError(
                f"--function {function}: a function of a -m module's __main__ cannot be isolated; "
                f"move {qualname} into a module that {program.target[1]} imports"
            )
        return function, None
    script = Path(program.target[0]).resolve()
    if module not in ("__main__", script.stem):
        return function, None
    if not _guarded(script):
        raise RecordingError(
            f"--function {function}: {script.name} runs its program when imported (no "
            f'`if __name__ == "__main__":` block), so a benchmark cannot import {qualname} from it: put '
            f"the program's top-level code under that block, or move {qualname} into a module"
        )
    return f"{script.stem}:{qualname}", str(script)


def _guarded(script: Path) -> bool:
    """Whether the script has a top-level ``if __name__ == "__main__":``."""
    try:
        tree = ast.parse(script.read_bytes())
    except (SyntaxError, ValueError):
        return False  # the program itself will say what is wrong with it
    return any(
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and {ast.dump(node.test.left), *(ast.dump(c) for c in node.test.comparators)}
        == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}
        for node in tree.body
    )


def _python_program(command: Sequence[str]) -> PythonCommand:
    program = python_command(command)
    if program is None:
        raise ProgramError(f"{command[0]}: isolate runs Python programs (python app.py ... or python -m module ...)")
    return program


def record_calls(
    command: Sequence[str],
    function: str,
    inputs: Path,
    calls: int = DEFAULT_CALLS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    script: str | None = None,
) -> Recording:
    """Run ``command`` (a Python program) recording up to ``calls`` calls of ``function`` into ``inputs``
    (created: it must not exist; removed again when nothing usable was recorded). ``script``: the
    function is the running script's own (``importable_function``)."""
    program = _python_program(command)
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
                    "script": script,
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
