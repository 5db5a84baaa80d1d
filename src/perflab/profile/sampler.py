"""Samplers seen from the parent: py-spy attached to a worker, or the worker sampling itself.

py-spy (the default) reads the worker's memory from outside with ptrace, so the operation runs
unmodified, and with ``--native`` it unwinds C frames too (``encoder_call (_json.c)``). It is
driven as a subprocess: ``py-spy record --pid PID --format raw`` until perflab interrupts it
(SIGINT makes it write its folded stacks). When it cannot attach (no ptrace permission, as in
containers without SYS_PTRACE) or is missing, ``inprocess`` describes the fallback: a timer signal
inside the worker (perflab.bench.worker.inprocess_sampler), Python frames only.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from perflab.profile.folded import FoldedFormatError, Stack, parse_folded

# Points perflab at a particular py-spy executable (also how tests deny it).
PY_SPY_ENV = "PERFLAB_PY_SPY"
_ATTACH_TIMEOUT = 20.0
_STOP_TIMEOUT = 30.0


class SamplerUnavailable(Exception):
    """py-spy cannot profile the worker; the message says why in one line."""


def find_py_spy() -> str | None:
    """$PERFLAB_PY_SPY, else the py-spy installed next to this interpreter (perflab's dependency), else PATH."""
    configured = os.environ.get(PY_SPY_ENV)
    if configured:
        return configured
    beside = Path(sys.executable).parent / "py-spy"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("py-spy")


def py_spy_version(executable: str) -> str:
    try:
        output = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "py-spy (unknown version)"
    return output.strip() or "py-spy (unknown version)"


class PySpyRecording:
    """One ``py-spy record`` attached to one process, from ``start`` until ``stop``."""

    def __init__(
        self,
        executable: str,
        pid: int,
        rate: int,
        native: bool,
        mode: str,
        nonblocking: bool,
        cpu: int | None = None,
        extra_options: tuple[str, ...] = (),  # e.g. --subprocesses
        lines: bool = False,
    ):
        """``cpu``: the CPU py-spy runs on (another than the target's: sampling then takes no time from it);
        ``lines``: Python frames labelled by the line running, not by the function's first line."""
        self._output = tempfile.NamedTemporaryFile(prefix="perflab-py-spy-", suffix=".txt", delete=False)  # noqa: SIM115 - closed at once; py-spy writes it
        self._output.close()
        command = [
            executable,
            "record",
            "--pid",
            str(pid),
            "--format",
            "raw",
            "--output",
            self._output.name,
            "--rate",
            str(rate),
            *([] if lines else ["--function"]),
            "--full-filenames",
        ]
        if native:
            command.append("--native")
        if mode == "wall":
            command.append("--idle")  # without it py-spy drops samples of waiting threads: CPU time
        if nonblocking and not native:  # py-spy refuses --nonblocking with --native
            command.append("--nonblocking")
        command.extend(extra_options)
        self.command = command
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=None if cpu is None else lambda: os.sched_setaffinity(0, {cpu}),
            )
        except OSError as error:
            self._cleanup()
            raise SamplerUnavailable(f"cannot run py-spy ({executable}): {error.strerror or error}") from error
        self._messages: list[str] = []

    def wait_until_sampling(self) -> None:
        """Block until py-spy says it is sampling; SamplerUnavailable if it exits or stays silent first."""
        deadline = time.monotonic() + _ATTACH_TIMEOUT
        pending = b""
        with selectors.DefaultSelector() as selector:
            stdout = self._process.stdout
            assert stdout is not None  # started with stdout=PIPE
            selector.register(stdout, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    self._messages.append(f"no word from py-spy within {_ATTACH_TIMEOUT:g} s")
                    break
                chunk = os.read(stdout.fileno(), 4096)
                if not chunk:  # py-spy exited
                    break
                pending += chunk
                *lines, pending = pending.split(b"\n")
                self._messages.extend(line.decode(errors="replace").strip() for line in lines)
                if any("Sampling process" in line for line in self._messages):
                    return
        self._messages.append(pending.decode(errors="replace").strip())
        self._process.kill()
        self._process.wait()
        self._cleanup()
        raise SamplerUnavailable(_failure_reason(self._messages, self._process.returncode))

    def wait(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds (None: no limit) for py-spy to end by itself (its target
        exited); whether it has."""
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def stop(self) -> tuple[Counter[Stack], int]:
        """Interrupt py-spy and read back (raw stacks, number of sampling errors py-spy reported)."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
        try:
            rest, _ = self._process.communicate(timeout=_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            rest, _ = self._process.communicate()
        self._messages.extend(line.strip() for line in rest.decode(errors="replace").splitlines() if line.strip())
        try:
            text = Path(self._output.name).read_text(encoding="utf-8", errors="replace")
            # A sample line with a count and no stack (seen at 1 kHz, and with --idle for a thread without
            # Python frames) has nothing to attribute: it is counted as a sampling error.
            text, empty = without_empty_stacks(text)
            return parse_folded(text, "py-spy output"), _reported_errors(self._messages) + empty
        except (OSError, FoldedFormatError) as error:
            raise SamplerUnavailable(
                f"py-spy wrote no readable stacks ({error}); it said: {_last_words(self._messages)}"
            ) from error
        finally:
            self._cleanup()

    def _cleanup(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self._output.name)


def without_empty_stacks(text: str) -> tuple[str, int]:
    """py-spy's output without its samples of no frame at all, and how many there were.

    --nonblocking reads the stack while the target runs, and now and then reads none (a line of
    just a count, e.g. " 2"; seen at 1 kHz): such a sample says nothing about where time went, so
    it counts as a sampling error rather than making the whole run unreadable.
    """
    kept, empty = [], 0
    for line in text.split("\n"):
        frames, _, count = line.strip().rpartition(" ")
        if not frames and count.isdigit():
            empty += int(count)
        else:
            kept.append(line)
    return "\n".join(kept), empty


def _failure_reason(messages: list[str], returncode: int | None) -> str:
    said = _last_words(messages)
    if "permission denied" in said.lower() or "operation not permitted" in said.lower():
        return (
            "py-spy cannot attach to the worker: ptrace permission denied (run as root or grant "
            "CAP_SYS_PTRACE, e.g. docker --cap-add SYS_PTRACE)"
        )
    return f"py-spy failed to attach (exit code {returncode}): {said}"


def _last_words(messages: list[str]) -> str:
    """The first line that explains a failure, without py-spy's backtrace."""
    useful = [
        m
        for m in messages
        if m and not m.startswith(("Stack backtrace", "py-spy> You can use")) and not m[:1].isdigit()
    ]
    return useful[0][:200] if useful else "no output"


def _reported_errors(messages: list[str]) -> int:
    for message in messages:
        if "Errors:" in message:
            try:
                return int(message.rsplit("Errors:", 1)[1].split()[0])
            except (IndexError, ValueError):
                return 0
    return 0
