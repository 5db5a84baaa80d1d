"""Command contenders: programs timed as whole processes, their output compared like a function's.

A command contender's operation runs a program on the case's input and returns what the program
did, as a plain dict: ``{"stdout": bytes, "exit_status": int}`` plus ``"file:NAME": bytes`` for each
declared output file. The worker times it like any contender (``times_itself``: the wall time of
each process, from spawn to ``wait4``), so commands get the same interleaved rounds, statistics,
adaptive stopping, warm-up values and throughput as Python contenders. Beside wall time, each
value carries the processes' user and system CPU time and peak RSS (from ``os.wait4``) and, when
declared, an inner-phase time the program prints itself (``InnerMetric``): what "parse only"
measures is then shown beside what "the whole program" costs, never confused with it.

The case input reaches the program as a file path (``{input}`` in argv, or appended), on
standard input, or as an argument; a case may return a path or the bytes themselves (written to
a temporary file once per process, outside the timed region).

Runs in worker processes: standard library only.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab.bench.comparators import Comparator, Outcome, resolve_comparator
from perflab.bench.versus import SIDES, versus
from perflab.bench.worker.process_memory import peak_rss

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

PLACEHOLDER = "{input}"
INPUT_MODES = ("path", "stdin", "arg", "none")
STDOUT, EXIT_STATUS = "stdout", "exit_status"
FILE_PREFIX = "file:"
# Per-value metrics beside wall time (perflab.results.model.ProcessRun.extra), per call.
USER, SYSTEM, MAX_RSS, INNER = "user_seconds", "system_seconds", "max_rss_bytes", "inner_seconds"
# Linux starts a program's peak RSS at the peak of the process that called exec (the worker, with
# vfork or fork alike), so a reading at or below the worker's own peak only says "at most that".
RSS_FLOOR = "rss_floor_bytes"
_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_STDERR_TAIL = 300  # characters of a failing program's standard error kept in its error


class CommandError(Exception):
    """A program could not be run, failed or printed no inner metric; the message is one line."""

    without_location = True  # the worker names no line of Python for it


@dataclass(frozen=True)
class InnerMetric:
    """A time the program reports about itself: the first group of ``pattern`` (a regular
    expression) in its ``stream`` (stdout or stderr), a number in ``unit`` (s, ms, us or ns)."""

    pattern: str
    unit: str = "s"
    stream: str = STDOUT

    def __post_init__(self) -> None:
        if self.unit not in _UNITS:
            raise ValueError(f"InnerMetric unit {self.unit!r}: use one of {', '.join(_UNITS)}")
        if self.stream not in (STDOUT, "stderr"):
            raise ValueError(f"InnerMetric stream {self.stream!r}: use 'stdout' or 'stderr'")
        try:
            if re.compile(self.pattern).groups < 1:
                raise ValueError(f"InnerMetric pattern {self.pattern!r} needs a group around the number")
        except re.error as error:
            raise ValueError(f"InnerMetric pattern {self.pattern!r}: {error}") from None

    def seconds(self, stdout: bytes, stderr: bytes) -> float:
        text = (stdout if self.stream == STDOUT else stderr).decode("utf-8", "replace")
        found = re.search(self.pattern, text)
        if found is None:
            raise CommandError(f"no inner metric: the pattern {self.pattern!r} is not in the program's {self.stream}")
        try:
            return float(found.group(1)) * _UNITS[self.unit]
        except ValueError:
            raise CommandError(f"inner metric {found.group(1)!r} is not a number") from None


@dataclass(frozen=True)
class Command:
    """How to run one program. ``argv`` is a list (no shell), or a string run by /bin/sh when
    ``shell`` is True; ``input``: how the case input reaches it (one of INPUT_MODES)."""

    argv: tuple[str, ...] | str
    input: str = "path"
    shell: bool = False
    env: dict[str, str] = field(default_factory=dict)  # added to perflab's environment
    cwd: str | None = None
    ok_status: tuple[int, ...] = (0,)  # other exit statuses are failures
    output_files: tuple[str, ...] = ()  # compared after each checked run (relative to cwd)
    inner: InnerMetric | None = None
    # Makes the program and returns its path, which goes before ``argv`` (perflab.bench.native_build);
    # called once per process, in the contender's setup, so a missing compiler is a "skipped".
    build: Callable[[], str] | None = None

    def __post_init__(self) -> None:
        if self.input not in INPUT_MODES:
            raise ValueError(f"command input={self.input!r}: use one of {', '.join(INPUT_MODES)}")
        if isinstance(self.argv, str) and not self.shell:
            raise ValueError(f"command {self.argv!r} is a string: give a list of arguments, or shell=True")
        if not self.argv and self.build is None:
            raise ValueError("a command needs at least a program to run")

    @property
    def program(self) -> str:
        return "/bin/sh" if self.shell else self.argv[0]

    def describe(self) -> str:
        return self.argv if isinstance(self.argv, str) else shlex.join(self.argv)


@dataclass
class Completed:
    """One finished process."""

    stdout: bytes
    stderr: bytes
    status: int
    wall: float
    user: float
    system: float
    max_rss: int  # bytes


class CommandOperation:
    """What the worker times for a command contender: ``operation(input)`` runs the program once
    and returns its output; ``times_itself(input, loops)`` runs it ``loops`` times and returns the
    summed wall time, keeping the other metrics of those runs for ``take_extra``."""

    def __init__(self, command: Command):
        self.command = command
        self._inputs: dict[bytes, str] = {}  # content -> temporary file, written once per process
        self._batch: list[tuple[Completed, float | None]] = []

    def __call__(self, argument: Any) -> dict[str, Any]:
        if not self.command.output_files:
            completed = self._run(argument)
            return {STDOUT: completed.stdout, EXIT_STATUS: completed.status}
        directory = Path(self.command.cwd or ".")
        # Equivalence checks run side by side, and contenders often write the same file name into
        # one directory: the run and the reading of its files hold the directory's lock, so one
        # contender's check never reads a file another is writing.
        with _directory_lock(directory):
            self._remove_old_outputs(directory, argument)
            completed = self._run(argument)
            output: dict[str, Any] = {STDOUT: completed.stdout, EXIT_STATUS: completed.status}
            for name in self.command.output_files:
                try:
                    output[FILE_PREFIX + name] = (directory / name).read_bytes()
                except OSError as error:
                    raise CommandError(f"output file {name} was not written: {error.strerror or error}") from None
        return output

    def _remove_old_outputs(self, directory: Path, argument: Any) -> None:
        """Delete the declared output files, so that a file left by an earlier run (or by another
        contender) cannot pass as this run's; never the case's input file."""
        given = argument if self.command.input in ("path", "stdin") else None
        input_file = os.path.realpath(given) if isinstance(given, (str, os.PathLike)) else None
        for name in self.command.output_files:
            path = directory / name
            if input_file is not None and os.path.realpath(path) == input_file:
                raise CommandError(
                    f"output file {name} is the case's input file: the program must write its output elsewhere"
                )
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:
                raise CommandError(
                    f"output file {name}: cannot remove the one an earlier run left ({error.strerror or error})"
                ) from None

    def times_itself(self, argument: Any, loops: int) -> float:
        self._batch = []
        total = 0.0
        for _ in range(loops):
            completed = self._run(argument)
            inner = self.command.inner.seconds(completed.stdout, completed.stderr) if self.command.inner else None
            self._batch.append((completed, inner))
            total += completed.wall
        return total

    def take_extra(self) -> dict[str, float]:
        """The metrics of the last ``times_itself`` batch, per call (peak RSS: the largest)."""
        if not self._batch:
            return {}
        calls = len(self._batch)
        extra = {
            USER: sum(c.user for c, _ in self._batch) / calls,
            SYSTEM: sum(c.system for c, _ in self._batch) / calls,
            MAX_RSS: float(max(c.max_rss for c, _ in self._batch)),
            RSS_FLOOR: float(peak_rss()),
        }
        if self.command.inner is not None:
            extra[INNER] = sum(inner or 0.0 for _, inner in self._batch) / calls
        return extra

    def _run(self, argument: Any) -> Completed:
        command = self.command
        argv, stdin_path = self.arguments(argument)
        environment = {**os.environ, **command.env} if command.env else None
        # Files, not pipes: nothing reads while the program runs, so no reader competes for the CPU.
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL  # noqa: SIM115 - closed below
            try:
                start = time.perf_counter()
                # In the worker's process group: a worker killed for a timeout takes the program with it.
                process = subprocess.Popen(
                    argv, stdin=stdin, stdout=out, stderr=err, env=environment, cwd=command.cwd, shell=command.shell
                )
                _, status, usage = os.wait4(process.pid, 0)
                wall = time.perf_counter() - start
            except FileNotFoundError as error:
                raise CommandError(f"cannot run {command.describe()!r}: {error.strerror}: {error.filename}") from None
            finally:
                if stdin_path:
                    stdin.close()  # type: ignore[union-attr]
            process.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            completed = Completed(
                out.read(),
                err.read(),
                process.returncode,
                wall,
                usage.ru_utime,
                usage.ru_stime,
                usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024),
            )
        if completed.status not in command.ok_status:
            raise CommandError(_failure(command, completed))
        return completed

    def arguments(self, argument: Any) -> tuple[list[str] | str, str | None]:
        """argv with the input in place, and the file to give on standard input (if any)."""
        command = self.command
        mode = command.input
        text = "" if mode == "none" else (str(argument) if mode == "arg" else self._as_file(argument))
        if isinstance(command.argv, str):
            argv: list[str] | str = (
                command.argv.replace(PLACEHOLDER, shlex.quote(text)) if mode != "stdin" else command.argv
            )
        else:
            argv = [part.replace(PLACEHOLDER, text) if mode != "stdin" else part for part in command.argv]
            if mode in ("path", "arg") and not any(PLACEHOLDER in part for part in command.argv):
                argv.append(text)
        return argv, text if mode == "stdin" else None

    def _as_file(self, argument: Any) -> str:
        if isinstance(argument, (str, os.PathLike)):
            return os.fspath(argument)
        if not isinstance(argument, (bytes, bytearray)):
            raise CommandError(
                f"a command's case must return a file path (str or Path) or bytes, not {type(argument).__name__}"
            )
        content = bytes(argument)
        if content not in self._inputs:
            handle, path = tempfile.mkstemp(prefix="perflab-input-")
            with os.fdopen(handle, "wb") as file:
                file.write(content)
            _written_inputs.append(path)
            self._inputs[content] = path
        return self._inputs[content]


@contextlib.contextmanager
def _directory_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` (flock on the directory itself: no lock file left
    behind), shared with every perflab worker on this machine."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError as error:
        raise CommandError(f"cannot open the working directory {str(directory)!r}: {error.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


# The input files this process wrote: every timing worker writes its own copy of a case's input,
# and a long comparison left thousands of them in the temporary folder.
_written_inputs: list[str] = []


@atexit.register
def remove_written_inputs() -> None:
    """Delete them: at exit, and by a worker before it reports "done" (its parent kills the
    process group right after, before exit handlers would run)."""
    while _written_inputs:
        with contextlib.suppress(OSError):
            os.unlink(_written_inputs.pop())


def _failure(command: Command, completed: Completed) -> str:
    if completed.status < 0:
        how = f"was killed by signal {signal.Signals(-completed.status).name}"
    else:
        how = f"exited with status {completed.status}"
    tail = " | ".join(completed.stderr.decode("utf-8", "replace").strip().splitlines())[-_STDERR_TAIL:]
    return f"{command.describe()!r} {how}" + (f": {tail}" if tail else " (nothing on stderr)")


class CommandSetup:
    """The setup function of a command contender (a class: the worker recognises and calls it)."""

    def __init__(self, command: Command):
        self.command = command
        self.__name__ = "command"
        self.__doc__ = command.describe()

    def __call__(self) -> CommandOperation:
        """A program that is not there is said once, before anything is timed."""
        if self.command.build is not None:
            built = self.command.build()
            self.command = replace(self.command, argv=(built, *self.command.argv), build=None)
        program = self.command.program
        if os.sep in program:
            found = str(Path(self.command.cwd or ".") / program)
            usable = os.path.isfile(found) and os.access(found, os.X_OK)
        else:
            usable = shutil.which(program) is not None
        if not usable:
            raise CommandError(f"command not found: {program!r} (not on PATH, or not an executable file)")
        return CommandOperation(self.command)


class ProgramComparator(Comparator):
    """Exit statuses must be equal; standard output and output files are compared by ``inner``
    ("exact", "json", "lines" for sorted lines, or a function of the two texts)."""

    def __init__(self, inner: Comparator):
        self.inner = inner
        self.name = f"program output ({inner.name})"

    def check(self, expected: Any, actual: Any) -> Outcome:
        if not (isinstance(expected, dict) and isinstance(actual, dict)):
            return Outcome(False, f"expected program outputs, got {type(actual).__name__}")
        if expected.get(EXIT_STATUS) != actual.get(EXIT_STATUS):
            return Outcome(False, f"exit status: {versus(SIDES, expected.get(EXIT_STATUS), actual.get(EXIT_STATUS))}")
        notes = []
        for key in expected.keys() | actual.keys():
            if key == EXIT_STATUS:
                continue
            if key not in actual or key not in expected:
                return Outcome(False, f"{key} is missing from the {'contender' if key not in actual else 'reference'}")
        for key in sorted(k for k in expected if k != EXIT_STATUS):
            if expected[key] == actual[key]:  # the same bytes (an empty output is not JSON, yet equal)
                continue
            outcome = self.inner.check(expected[key], actual[key])
            if not outcome.equivalent:
                return Outcome(False, f"{key}: {outcome.difference}")
            if outcome.note:
                notes.append(f"{key}: {outcome.note}")
        return Outcome(True, note="; ".join(notes) or None)


def program_comparator(compare: Any) -> ProgramComparator:
    """The comparator of a benchmark of commands, from its ``compare=``."""
    if isinstance(compare, ProgramComparator):
        return compare
    return ProgramComparator(resolve_comparator(compare))
