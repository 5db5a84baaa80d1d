"""One perflab verb run for a tool call: ``python -m perflab VERB ...`` in a subprocess, the same
code and validation as on the command line. A subprocess because the server's own stdout is the
MCP stream (nothing a verb or the user's benchmark prints may reach it), and so that a cancelled
call stops the verb as Ctrl-C does. While it runs, the call reports progress: the seconds spent
of the verb's time budget, with the verb's last line of progress.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream
from mcp.server.mcpserver.exceptions import ToolError

# ctx.report_progress(progress, total, message)
Progress = Callable[[float, "float | None", "str | None"], Awaitable[None]]

PROGRESS_EVERY = 1.0  # seconds between progress notifications
STOP_GRACE = 10.0  # seconds a cancelled verb gets to stop its workers before it is killed


@dataclass
class VerbRun:
    exit_code: int
    output: Any  # what the verb wrote with --json (None for a verb that writes none)
    text: str  # what it printed: its tables, as in a terminal


async def run_verb(
    verb: str,
    options: list[str],
    positionals: list[str],
    progress: Progress,
    budget: float | None,
    json_output: bool = True,
    rewrite_error: Callable[[str], str] = lambda line: line,
) -> VerbRun:
    """Run the verb with ``options`` (``--name=value`` words, and ``--json`` into a temporary file
    when ``json_output``), then ``--`` and ``positionals``: a tool argument that starts with ``-`` is
    a file or program name there, never an option;
    its one-line error (exit code 2, or no JSON written) becomes the call's ToolError, after
    ``rewrite_error``. ``budget``: the verb's --max-time, the total of the progress reported."""
    with tempfile.TemporaryDirectory(prefix="perflab-mcp-") as work:
        json_file = Path(work) / f"{verb}.json"
        argv = [sys.executable, "-m", "perflab", verb, *options, *([f"--json={json_file}"] if json_output else [])]
        argv += ["--", *positionals]
        stdout, stderr = bytearray(), bytearray()
        # COLUMNS: tables as wide as in a terminal, not cut to 80 columns.
        environment = {**os.environ, "COLUMNS": "160"}
        process = await anyio.open_process(argv, stdin=subprocess.DEVNULL, env=environment)
        try:
            async with anyio.create_task_group() as readers:
                assert process.stdout is not None and process.stderr is not None
                readers.start_soon(_drain, process.stdout, stdout)
                readers.start_soon(_drain, process.stderr, stderr)
                await _report_until_done(process, progress, budget, stderr)
        finally:
            await _stop(process)
        code = process.returncode if process.returncode is not None else -1
        output = json.loads(json_file.read_text()) if json_output and json_file.is_file() else None
    if code == 2 or (json_output and output is None):
        raise ToolError(rewrite_error(_error_line(stderr.decode(errors="replace"), verb, code)))
    return VerbRun(code, output, stdout.decode(errors="replace"))


async def _drain(stream: ByteReceiveStream, sink: bytearray) -> None:
    async for chunk in stream:
        sink.extend(chunk)


async def _report_until_done(
    process: anyio.abc.Process, progress: Progress, budget: float | None, stderr: bytearray
) -> None:
    started = time.monotonic()
    while True:
        elapsed = time.monotonic() - started
        lines = stderr.decode(errors="replace").strip().splitlines()
        await progress(elapsed if budget is None else min(elapsed, budget), budget, lines[-1] if lines else "starting")
        with anyio.move_on_after(PROGRESS_EVERY):
            await process.wait()
            return


async def _stop(process: anyio.abc.Process) -> None:
    """A verb still running (the call was cancelled) is stopped as by SIGTERM: it ends its
    workers and removes its worktrees; killed if it has not ended within STOP_GRACE."""
    if process.returncode is not None:
        return
    with anyio.CancelScope(shield=True):
        process.terminate()
        with anyio.move_on_after(STOP_GRACE):
            await process.wait()
            return
        process.kill()
        await process.wait()


def _error_line(stderr: str, verb: str, code: int) -> str:
    """The verb's one-line error (its last ``perflab: error:`` line), else its last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line.removeprefix("perflab: error: ") for line in lines if line.startswith("perflab: error: ")]
    if errors:
        return errors[-1]
    return f"perflab {verb} ended with exit code {code}" + (f": {lines[-1]}" if lines else "")
