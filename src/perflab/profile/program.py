"""Whole-program profiles: a command perflab starts (``perflab profile -- python app.py``) or a
running process (``perflab profile --pid N``), sampled by py-spy into perflab's profile model.

A Python program (the command starts with a Python interpreter) is started through
perflab.bench.worker.program, which waits until py-spy is attached: its first milliseconds are profiled,
and if py-spy cannot attach (no ptrace permission) nothing of it has run yet, so it is started again
under the in-process sampler. Stacks are trimmed to what runs below the launcher's ``run_program``
(other threads are kept whole). Any other command is started as it is and py-spy attaches to it
(``subprocesses`` follows its children). The program's output passes through untouched.

Each run of the program is one profiling run: its wall time is the run's "time per call", so
``perflab diff`` of two programs' profiles compares seconds per run of the program per call path.
In ``wall`` mode a second, non-blocking py-spy without ``--idle`` samples the same process at the
same rate: what the wall-clock sampler saw beyond it is time spent waiting (off CPU).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perflab.measure import metadata
from perflab.measure.launcher import worker_environment
from perflab.profile.folded import Stack
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.processors import normalize_stacks, path_roots, project_root
from perflab.profile.sampler import PySpyRecording, SamplerUnavailable, find_py_spy, py_spy_version
from perflab.profile.session import ProfileOutcome
from perflab.profile.settings import AUTO, DEFAULT_RATE, INPROCESS, INPROCESS_DESCRIPTION, NATIVE, PY_SPY, SHARED

LAUNCHER = "perflab.bench.worker.program"
_LAUNCHER_FILE = os.path.join("perflab", "bench", "worker", "program.py")
_PROGRAM_REGION = "run_program"
_RUNPY_FILES = ("runpy.py", "<frozen runpy>")
_PYTHON_NAME = re.compile(r"^(python|pypy)[0-9.]*[dt]?(\.exe)?$")
# Interpreter options that take a value (python -X dev app.py); the others are single flags.
_OPTIONS_WITH_VALUE = ("-X", "-W", "--check-hash-based-pycs")
_ATTACH_ATTEMPTS = 5  # a command that is not Python yet when started (a shell script) gets a few tries
_READY_TIMEOUT = 60.0  # for the launcher's interpreter to start; py-spy is tried after it in any case
ON_CPU_FRAMES_KEPT = 200  # frames whose on-CPU samples are kept in the metadata, the most sampled first


class ProgramError(Exception):
    """A command that cannot be profiled as given; the message says why in one line."""


@dataclass
class ProgramSettings:
    rate: int | None = None  # None: DEFAULT_RATE for the frames collected (not pinned: py-spy shares its CPUs)
    native: bool = False
    mode: str = "cpu"  # "wall": waiting threads too, and waiting time told apart from CPU time
    sampler: str = AUTO
    blocking: bool = False
    subprocesses: bool = False
    gil: bool = False  # only samples of threads holding the GIL (py-spy --gil)
    runs: int = 1  # times the command is run (fresh processes); the unit of the share intervals
    duration: float | None = None  # --pid: seconds to sample (None: until it exits or Ctrl-C)

    @property
    def effective_rate(self) -> int:
        return self.rate or DEFAULT_RATE[NATIVE if self.native else SHARED]

    @property
    def nonblocking(self) -> bool:
        return not self.blocking and not self.native


@dataclass
class ProgramOutcome:
    outcome: ProfileOutcome
    exit_status: int | None = None  # the program's (128 + N when killed by signal N); None for --pid
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PythonCommand:
    """``python [interpreter options] script.py ARGS`` or ``python [options] -m module ARGS``."""

    python: str
    options: tuple[str, ...]
    target: tuple[str, ...]  # (script, args...) or ("-m", module, args...)

    @property
    def name(self) -> str:
        return self.target[1] if self.target[0] == "-m" else Path(self.target[0]).name

    @property
    def directory(self) -> str:
        return os.getcwd() if self.target[0] == "-m" else str(Path(self.target[0]).resolve().parent)

    def launcher(self, *flags: str) -> list[str]:
        return [self.python, *self.options, "-m", LAUNCHER, *flags, "--", *self.target]


def python_command(command: Sequence[str]) -> PythonCommand | None:
    """The Python program a command runs, if it starts with a Python interpreter; else None.

    ``python -c CODE`` and an interactive ``python`` are refused (ProgramError): there is no
    program file to profile and to isolate functions from."""
    if not command:
        raise ProgramError("no command given after --")
    executable = shutil.which(command[0]) or command[0]
    is_python = _PYTHON_NAME.match(Path(command[0]).name) or os.path.realpath(executable) == os.path.realpath(
        sys.executable
    )
    if not is_python:
        return None
    options: list[str] = []
    rest = list(command[1:])
    while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-"):
        option = rest.pop(0)
        if option == "-c":
            raise ProgramError("python -c is not supported: put the code in a file and profile `python FILE`")
        options.append(option)
        if option in _OPTIONS_WITH_VALUE and rest:
            options.append(rest.pop(0))
    if not rest or rest[0] == "-" or (rest[0] == "-m" and len(rest) < 2):
        raise ProgramError(f"{' '.join(command)}: no script or -m module to run")
    if rest[0] != "-m" and not Path(rest[0]).is_file():
        raise ProgramError(f"{rest[0]}: no such file (the Python program to run)")
    return PythonCommand(command[0], tuple(options), tuple(rest))


def exit_status(returncode: int) -> int:
    """A process's return code as a shell reports it: 128 + N for death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


# ---- the two entry points -----------------------------------------------------------------------


def profile_command(
    command: Sequence[str], settings: ProgramSettings, on_run: Callable[[str], None] = lambda message: None
) -> ProgramOutcome:
    """Run ``command`` ``settings.runs`` times under the sampler; the profile and the program's exit status."""
    program = python_command(command)
    python = program.python if program else sys.executable
    directory = program.directory if program else os.getcwd()
    profile = _new_profile(
        program.name if program else Path(command[0]).name, list(command), settings, directory, python
    )
    if not program:
        profile.metadata["python"] = {}  # not known: the command is not started by a Python perflab knows
    result = ProgramOutcome(ProfileOutcome(profile))
    sampler, reason = _choose_sampler(settings, program is not None)
    if sampler is None:
        result.outcome.error = reason
        return result
    roots = path_roots(project_root(directory), _interpreter_paths(python))
    started = time.monotonic()
    try:
        while len(profile.runs) < settings.runs:
            try:
                run = _run_once(command, program, settings, sampler)
            except SamplerUnavailable as unavailable:
                if program is None or settings.sampler != AUTO:
                    result.outcome.error = str(unavailable)
                    break
                sampler, reason = INPROCESS, str(unavailable)  # the program has not started: run it again
                continue
            result.exit_status = run.status if result.exit_status in (None, 0) else result.exit_status
            _add_run(profile, run, roots)
            on_run(
                f"run {len(profile.runs)}: {run.info['samples']} samples in {run.info['time_per_call']:.2f} s, "
                f"exit status {run.status}"
            )
            if run.error:
                result.outcome.error = run.error
                break
    except KeyboardInterrupt:
        result.outcome.interrupted = True
    profile.metadata.update(
        _sampler_metadata(sampler, reason, settings),
        runs=len(profile.runs),
        samples=profile.samples,
        elapsed=time.monotonic() - started,
    )
    return result


def profile_pid(pid: int, settings: ProgramSettings) -> ProgramOutcome:
    """Sample the running process ``pid`` for ``settings.duration`` seconds, until it exits, or until Ctrl-C."""
    if settings.sampler == INPROCESS:
        raise ProgramError("--pid needs py-spy: the in-process sampler runs only in programs perflab starts")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        raise ProgramError(f"--pid {pid}: no such process") from None
    except PermissionError:
        pass  # it exists; py-spy says whether it may read it
    profile = _new_profile(f"pid {pid}", [], settings, os.getcwd())
    profile.metadata["pid"] = pid
    result = ProgramOutcome(ProfileOutcome(profile))
    sampler, reason = _choose_sampler(settings, False)
    if sampler is None:
        result.outcome.error = reason
        return result
    started = time.perf_counter()
    try:
        recordings = _attach(pid, settings, attempts=1)
    except SamplerUnavailable as error:
        result.outcome.error = str(error)
        return result
    try:
        recordings[0].wait(settings.duration)
    except KeyboardInterrupt:
        result.outcome.interrupted = True
    try:
        run = _Run(0, time.perf_counter() - started, *_stop(recordings))
    except SamplerUnavailable as error:
        result.outcome.error = str(error)
        return result
    _add_run(profile, run, path_roots(project_root(os.getcwd()), _interpreter_paths(sys.executable)))
    profile.metadata.update(_sampler_metadata(sampler, reason, settings), runs=1, samples=profile.samples)
    return result


# ---- one run ------------------------------------------------------------------------------------


@dataclass
class _Run:
    status: int
    seconds: float
    stacks: Counter[Stack]
    on_cpu: Counter[Stack] | None = None  # wall mode: the concurrent CPU-time samples
    errors: int = 0
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


def _run_once(command: Sequence[str], program: PythonCommand | None, settings: ProgramSettings, sampler: str) -> _Run:
    read_end = write_end = ready_read = ready_write = -1
    stacks_file = None
    if program is not None:
        read_end, write_end = os.pipe()
        ready_read, ready_write = os.pipe()
        flags = ["--go-fd", str(read_end), "--ready-fd", str(ready_write)]
        if sampler == INPROCESS:
            stacks_file = tempfile.NamedTemporaryFile(prefix="perflab-program-", suffix=".json", delete=False)  # noqa: SIM115 - the program writes it
            stacks_file.close()
            flags += ["--inprocess", f"{settings.effective_rate},{settings.mode},{stacks_file.name}"]
        argv = program.launcher(*flags)
        environment = worker_environment(program.python)
    else:
        argv, environment = list(command), None
    try:
        process = subprocess.Popen(argv, pass_fds=(read_end, ready_write) if program else (), env=environment)
    except OSError as error:
        for end in (write_end, ready_read):
            if end >= 0:
                os.close(end)
        raise ProgramError(f"cannot run {command[0]}: {error.strerror or error}") from error
    finally:
        for end in (read_end, ready_write):  # the launcher's ends
            if end >= 0:
                os.close(end)
    recordings: list[PySpyRecording] = []
    try:
        if ready_read >= 0:
            _wait_until_ready(ready_read)
            os.close(ready_read)
            ready_read = -1
        if sampler == PY_SPY:
            try:
                recordings = _attach(process.pid, settings, attempts=1 if program else _ATTACH_ATTEMPTS)
            except SamplerUnavailable as error:
                if program is not None:  # waiting for the go byte: nothing of the program has run
                    process.kill()
                    process.wait()
                    raise
                return _Run(exit_status(process.wait()), 0.0, Counter(), error=str(error))
        started = time.perf_counter()
        if write_end >= 0:
            os.write(write_end, b"g")
            os.close(write_end)
            write_end = -1
        status = exit_status(process.wait())
        seconds = time.perf_counter() - started
    except BaseException:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # Ctrl-C reached it too, as part of the terminal's group
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
        with contextlib.suppress(SamplerUnavailable):
            _stop(recordings)  # what was sampled is not needed any more
        raise
    finally:
        for end in (write_end, ready_read):
            if end >= 0:
                os.close(end)
        if process.poll() is None:
            process.kill()
            process.wait()
    if sampler == PY_SPY:
        try:
            stacks, on_cpu, errors = _stop(recordings)
        except SamplerUnavailable as error:  # the program has run: it is not run again
            return _Run(status, seconds, Counter(), error=str(error))
        return _Run(status, seconds, stacks, on_cpu, errors)
    assert stacks_file is not None
    try:
        stacks = Counter({tuple(frames): count for frames, count in json.loads(Path(stacks_file.name).read_text())})
    except (OSError, ValueError):  # killed before it could write them
        stacks = Counter()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(stacks_file.name)
    return _Run(status, seconds, stacks)


def _wait_until_ready(ready_end: int) -> None:
    """Until the launcher's interpreter is up and waits for the go byte, or has exited: py-spy
    started on a Python still loading fails ("Failed to find python version from target process"),
    which a loaded machine made happen."""
    readable, _, _ = select.select([ready_end], [], [], _READY_TIMEOUT)
    if readable:
        os.read(ready_end, 1)  # the byte, or b"" if the launcher exited first (its status says why)


def _attach(pid: int, settings: ProgramSettings, attempts: int) -> list[PySpyRecording]:
    """py-spy attached to ``pid`` (and, in wall mode, a second one counting CPU time only)."""
    executable = find_py_spy()
    if executable is None:
        raise SamplerUnavailable("py-spy was not found (pip install py-spy, or point PERFLAB_PY_SPY at it)")
    extra = (("--subprocesses",) if settings.subprocesses else ()) + (("--gil",) if settings.gil else ())
    modes = ["wall", "cpu"] if settings.mode == "wall" and settings.nonblocking else [settings.mode]
    recordings: list[PySpyRecording] = []
    for mode in modes:
        for attempt in range(attempts):
            spy = PySpyRecording(
                executable,
                pid,
                settings.effective_rate,
                settings.native,
                mode,
                settings.nonblocking,
                extra_options=extra,
            )
            try:
                spy.wait_until_sampling()
                break
            except SamplerUnavailable:
                if attempt == attempts - 1:
                    _stop(recordings)
                    raise
                time.sleep(0.1 * (attempt + 1))
        recordings.append(spy)
    return recordings


def _stop(recordings: list[PySpyRecording]) -> tuple[Counter[Stack], Counter[Stack] | None, int]:
    results = [recording.stop() for recording in recordings]
    recordings.clear()
    if not results:
        return Counter(), None, 0
    stacks, errors = results[0]
    return stacks, results[1][0] if len(results) > 1 else None, errors


# ---- stacks into the profile --------------------------------------------------------------------


def trim_launcher(stacks: Counter[Stack]) -> tuple[Counter[Stack], int]:
    """Stacks of the program without the launcher's frames; (kept, samples dropped).

    Below ``run_program``, runpy's frames are dropped too; stacks in the launcher that never
    entered ``run_program`` (its start-up under runpy, waiting for the go byte, writing the
    in-process samples) are dropped. Other stacks (the program's other threads) are kept whole."""
    kept: Counter[Stack] = Counter()
    dropped = 0
    for stack, count in stacks.items():
        frames = [parse_frame(label) for label in stack]
        in_launcher = [i for i, frame in enumerate(frames) if frame.file.endswith(_LAUNCHER_FILE)]
        if not in_launcher:
            if frames and frames[0].file.endswith(_RUNPY_FILES):  # the launcher's start-up (python -m)
                dropped += count
            else:
                kept[stack] += count
            continue
        region = next((i for i in in_launcher if frames[i].name == _PROGRAM_REGION), None)
        if region is None:
            dropped += count
            continue
        start = region + 1
        while start < len(frames) and frames[start].file.endswith(_RUNPY_FILES):
            start += 1
        kept[stack[start:]] += count
    return kept, dropped


def _add_run(profile: Profile, run: _Run, roots: list[tuple[str, str]]) -> None:
    stacks, dropped = trim_launcher(run.stacks)
    stacks = normalize_stacks(stacks, roots)
    info: dict[str, Any] = {
        "samples": sum(stacks.values()),
        "outside_operation": dropped,
        "sampler_errors": run.errors,
        "time_per_call": run.seconds,  # one "call" is one run of the program
        "exit_status": run.status,
    }
    if run.on_cpu is not None:
        on_cpu = normalize_stacks(trim_launcher(run.on_cpu)[0], roots)
        info["on_cpu_samples"] = sum(on_cpu.values())
        own = Counter(profile.metadata.get("on_cpu_self") or {})
        own.update(Counter(stack[-1] for stack in on_cpu.elements() if stack))
        profile.metadata["on_cpu_self"] = dict(own.most_common(ON_CPU_FRAMES_KEPT))
    run.info = info
    if info["samples"] or not run.error:
        profile.runs.append(stacks)
        profile.metadata.setdefault("run_info", []).append(info)


def _new_profile(
    name: str, command: list[str], settings: ProgramSettings, directory: str, python: str = sys.executable
) -> Profile:
    return Profile(
        metadata={
            "benchmark": name,
            "program": command,
            # GIL-only samples are another kind of time: as a mode, merge and diff keep them apart
            "mode": "gil" if settings.gil else settings.mode,
            "rate": settings.effective_rate,
            "native": settings.native,
            "subprocesses": settings.subprocesses,
            **metadata.collect(directory, python),
        }
    )


def _choose_sampler(settings: ProgramSettings, is_python: bool) -> tuple[str | None, str | None]:
    if settings.sampler == INPROCESS:
        if not is_python:
            return None, "the in-process sampler works only for Python programs (python app.py or python -m module)"
        return INPROCESS, None
    if find_py_spy() is None:
        missing = "py-spy was not found (pip install py-spy, or point PERFLAB_PY_SPY at it)"
        return (INPROCESS, missing) if is_python and settings.sampler == AUTO else (None, missing)
    return PY_SPY, None


def _sampler_metadata(sampler: str, reason: str | None, settings: ProgramSettings) -> dict[str, Any]:
    if sampler == PY_SPY:
        executable = find_py_spy()
        return {
            "sampler": "py-spy",
            "sampler_version": py_spy_version(executable) if executable else "py-spy",
            "nonblocking": settings.nonblocking,
            "sampler_reason": reason,
        }
    return {
        "sampler": "inprocess",
        "sampler_version": INPROCESS_DESCRIPTION + ", main thread",
        "native": False,
        "sampler_reason": reason,
    }


_PATHS_PROBE = "import json, sysconfig; print(json.dumps(sysconfig.get_paths()))"


def _interpreter_paths(python: str) -> dict[str, str]:
    """The stdlib and site-packages directories of ``python``, to shorten its frames' paths."""
    try:
        output = subprocess.run([python, "-c", _PATHS_PROBE], capture_output=True, text=True, timeout=60).stdout
        return json.loads(output)
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}
