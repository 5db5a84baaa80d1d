"""Profiles of native programs with Linux ``perf``: the same profile model as Python profiles.

``profile_command(argv, ...)`` runs the program under ``perf record -e cpu-clock`` (a software
event: it works in virtual machines without hardware counters) with DWARF or frame-pointer call
graphs, as many times as the sample target needs, and reads the stacks back with ``perf script``
(symbols demangled by perf; Rust's legacy ``::h<hash>`` suffixes removed so that two builds line
up). Each perf run is one profiling run of the Profile, so shares get intervals over runs, and
flame graphs, ``perflab merge``, differential profiles and what-if work on the result unchanged.
Labels are ``symbol (library)``, the layout of native frames in py-spy's output.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from perflab.bench.commands import CommandSetup
from perflab.bench.spec import Benchmark
from perflab.profile.folded import Stack
from perflab.profile.model import Profile
from perflab.profile.perf_inlines import with_inlined
from perflab.profile.settings import DEFAULT_SAMPLES, PERF_RUNS

CALL_GRAPHS = ("dwarf", "fp")
DEFAULT_RATE = 999  # Hz: an odd rate, so that sampling does not beat with periodic work
# What perf record did after the program (or worker) it records had exited, cut (a recording is
# read at once, by path, and reads the same: tests/external/test_perf_sampler.py): waiting for its thread for BPF programs'
# symbols, which polls with a 1 s timeout (0.5 s a run on average; BPF code is kernel code, whose
# frames a profile drops), and reading the whole recording back for the build ids of the libraries
# it sampled (0.16 CPU-s for 1 s of samples).
RECORD_EXIT = ["--no-bpf-event", "--no-buildid"]
# perf record still costs ~1 s of its own per call here (setting up its buffers), whatever the
# program: a short program is run several times under one record (at most this many).
MAX_REPEAT = 1000
# Runs the program "$1" times, each with "$2" on standard input: one perf record for them all.
_REPEAT = 'n=$1; input=$2; shift 2; i=0; while [ "$i" -lt "$n" ]; do "$@" < "$input" || exit $?; i=$((i + 1)); done'
_PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")
_FRAME = re.compile(r"^\s*(?P<ip>[0-9a-f]+) (?P<symbol>.*?) \((?P<dso>[^()]*)\)$")
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")
_UNKNOWN = "[unknown]"


class NativeProfilerUnavailable(Exception):
    """perf is missing or not permitted here; the message says how to fix it."""


class ProgramStopped(Exception):
    """The program outlasted --max-time or --timeout under perf and was stopped (with perf); the
    message says which, ``profile`` holds the runs recorded before it (the stopped record's samples
    are not kept: a killed perf leaves no readable data)."""

    def __init__(self, message: str, profile: Profile):
        super().__init__(message)
        self.profile = profile


@dataclass(frozen=True)
class NativeSettings:
    samples: int = DEFAULT_SAMPLES[False]  # over all runs
    runs: int = PERF_RUNS
    rate: int = DEFAULT_RATE
    call_graph: str = "dwarf"  # "fp" needs programs built with frame pointers
    max_time: float = 300.0  # seconds for all runs (a record started within them may finish its expected time)
    timeout: float = 60.0  # seconds one run of the program may take


@dataclass(frozen=True)
class ContenderCommand:
    """What a command contender runs on one case: argv (a shell's for a shell command), the file
    given on standard input (if any), its extra environment and working directory."""

    argv: list[str]
    stdin: str | None
    env: dict[str, str]
    cwd: str | None


def is_command(benchmark: Benchmark, contender: str) -> bool:
    return isinstance(benchmark.contenders[contender].function, CommandSetup)


def contender_command(benchmark: Benchmark, case: str, contender: str) -> ContenderCommand:
    """The program ``contender`` (a command contender) runs on ``case``, its input in place."""
    setup = benchmark.contenders[contender].function
    assert isinstance(setup, CommandSetup)
    argv, stdin = setup().arguments(benchmark.cases[case].build())
    full = ["/bin/sh", "-c", argv] if isinstance(argv, str) else argv
    return ContenderCommand(full, stdin, dict(setup.command.env), setup.command.cwd)


def check_perf() -> str:
    """The path of perf, or NativeProfilerUnavailable saying what to do."""
    perf = shutil.which("perf")
    if perf is None:
        raise NativeProfilerUnavailable(
            "native profiles need Linux perf, which is not installed "
            "(Debian/Ubuntu: apt-get install linux-perf, or linux-tools-$(uname -r))"
        )
    try:
        paranoid = int(_PARANOID.read_text())
    except (OSError, ValueError):
        paranoid = None
    if paranoid is not None and paranoid > 2 and os.geteuid() != 0:
        raise NativeProfilerUnavailable(
            f"perf may not sample here: kernel.perf_event_paranoid is {paranoid}; allow it with "
            "`sudo sysctl kernel.perf_event_paranoid=1` (or run as root)"
        )
    return perf


def profile_command(
    argv: Sequence[str],
    settings: NativeSettings = NativeSettings(),
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    on_run: Callable[[str], None] = lambda message: None,
    seconds_per_execution: float | None = None,
) -> Profile:
    """Sample ``argv`` (run without a shell; ``stdin``: a file given on standard input) until
    ``settings.samples`` samples over at least ``settings.runs`` runs, or ``max_time``.
    ``seconds_per_execution`` (the program's time, when measured before) sizes the first perf record.
    A program still running when the budget is spent (and twice the time its record was expected to
    take), or after ``timeout`` per execution, is stopped: ProgramStopped, with the runs before it."""
    if settings.call_graph not in CALL_GRAPHS:
        raise ValueError(f"call graph {settings.call_graph!r}: use one of {', '.join(CALL_GRAPHS)}")
    perf = check_perf()
    profile = Profile(
        metadata={
            "sampler": "perf",
            "sampler_version": perf_version(perf),
            "mode": "cpu",
            "native": True,
            "rate": settings.rate,
            "call_graph": settings.call_graph,
            "command": list(argv),
        }
    )
    deadline = time.monotonic() + settings.max_time
    per_run = max(1, settings.samples // settings.runs)
    # Samples one execution gives: from the last record, or at first from the time measured before.
    per_execution = seconds_per_execution * settings.rate if seconds_per_execution else None
    while (len(profile.runs) < settings.runs or profile.samples < settings.samples) and time.monotonic() < deadline:
        stacks: Counter[Stack] = Counter()
        executions = 0
        at_least = 1  # executions the next record holds at least
        while sum(stacks.values()) < per_run and time.monotonic() < deadline:
            repeat = max(at_least, _repeat(per_run - sum(stacks.values()), per_execution))
            expected = repeat * per_execution / settings.rate if per_execution else 0.0
            budget_left = max(deadline - time.monotonic(), 2 * expected + 1)
            try:
                got = _record_once(
                    perf, argv, settings, stdin, env, cwd, repeat, min(settings.timeout * repeat, budget_left)
                )
            except subprocess.TimeoutExpired:
                limit = (
                    f"it outlasted the time budget (--max-time {settings.max_time:g} s); raise --max-time "
                    "if it runs this long, else it hangs"
                    if budget_left < settings.timeout * repeat
                    else f"it did not finish within {settings.timeout:g} s (see --timeout)"
                )
                raise ProgramStopped(f"{argv[0]!r} was stopped under perf: {limit}", _finished(profile)) from None
            if not got:
                # A program of a few ms can end before its first sample (seen under load with a
                # 10,000-line sort): once, ten times as many executions under one record; a second
                # record without a sample means it is too short to be sampled at this rate.
                if at_least > 1 or repeat >= MAX_REPEAT:
                    break
                at_least = min(MAX_REPEAT, 10 * repeat)
                continue
            stacks.update(got)
            executions += repeat
            per_execution = sum(got.values()) / repeat
        if not stacks:
            raise NativeProfilerUnavailable(
                f"perf took no sample of {argv[0]!r}: it ends before the first sample at {settings.rate} Hz; "
                "give it more work or raise --rate"
            )
        profile.runs.append(stacks)
        # CPU seconds per execution, from the samples (cpu-clock samples only a running program):
        # what a differential profile scales shares by when no timing phase measured the program.
        per_call = sum(stacks.values()) / settings.rate / executions
        profile.metadata.setdefault("run_info", []).append({"executions": executions, "time_per_call": per_call})
        on_run(f"run {len(profile.runs)}: {sum(stacks.values())} samples")
    return _finished(profile)


def _finished(profile: Profile) -> Profile:
    profile.metadata["runs"], profile.metadata["samples"] = len(profile.runs), profile.samples
    return profile


def _repeat(wanted: int, per_execution: float | None) -> int:
    """How many executions the next perf record should hold: enough for ``wanted`` samples at the
    samples per execution the last record gave; one until that is known."""
    if per_execution is None:
        return 1
    return max(1, min(MAX_REPEAT, math.ceil(wanted / max(per_execution, 1e-9))))


def _record_once(
    perf: str,
    argv: Sequence[str],
    settings: NativeSettings,
    stdin: str | None,
    env: dict[str, str] | None,
    cwd: str | None,
    repeat: int = 1,
    limit: float | None = None,
) -> Counter[Stack]:
    """``repeat`` executions of the program under one perf record, read back as stacks (root first);
    subprocess.TimeoutExpired once it runs ``limit`` seconds (default ``timeout`` per execution), and
    then perf and the program are killed (their own process group: nothing is left running)."""
    with tempfile.TemporaryDirectory(prefix="perflab-perf-") as scratch:
        data = os.path.join(scratch, "perf.data")
        record = [perf, "record", "-q", "-e", "cpu-clock", "-F", str(settings.rate), "--call-graph"]
        record += ["dwarf" if settings.call_graph == "dwarf" else "fp", *RECORD_EXIT, "-o", data, "--"]
        if repeat > 1:
            record += ["/bin/sh", "-c", _REPEAT, "sh", str(repeat), stdin or os.devnull, *argv]
        else:
            record += list(argv)
        with open(stdin or os.devnull, "rb") as given:
            recording = subprocess.Popen(
                record,
                stdin=given,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env={**os.environ, **env} if env else None,
                cwd=cwd,
                start_new_session=True,
            )
            try:
                _, stderr = recording.communicate(timeout=settings.timeout * repeat if limit is None else limit)
            finally:  # timed out or interrupted: perf and the program go together
                if recording.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(recording.pid, signal.SIGKILL)
                    recording.communicate()
        problem = stderr.decode("utf-8", "replace")
        if "perf_event_paranoid" in problem or "Permission denied" in problem:
            raise NativeProfilerUnavailable(
                "perf may not sample here (kernel.perf_event_paranoid); allow it with "
                "`sudo sysctl kernel.perf_event_paranoid=1` (or run as root)"
            )
        if not os.path.exists(data):
            tail = " | ".join(problem.strip().splitlines()[-3:])
            raise NativeProfilerUnavailable(f"perf record failed on {argv[0]!r}: {tail or 'no output'}")
        script = subprocess.run(
            [perf, "script", "-i", data, "--no-inline", "-F", "comm,tid,ip,sym,dso"],
            capture_output=True,
            timeout=max(settings.timeout, 60.0),
        )
        # The repeating shell's own samples (forking, waiting) are not the program's.
        return parse_script(with_inlined(script.stdout.decode("utf-8", "replace")), "sh" if repeat > 1 else None)


def parse_script(text: str, skip_command: str | None = None) -> Counter[Stack]:
    """``perf script -F comm,tid,ip,sym,dso`` output as stacks, root first: a sample is a header
    line ("comm tid") and its frames (leaf first), blank-line separated; inlined frames take the
    library of the function they are inlined into. Samples of processes named ``skip_command``
    are left out (the shell that repeats a short program)."""
    stacks: Counter[Stack] = Counter()
    for block in text.split("\n\n"):
        lines = block.strip("\n").splitlines()
        if not lines or (skip_command is not None and lines[0].split()[:1] == [skip_command]):
            continue
        frames = [m for m in (_FRAME.match(line) for line in lines[1:]) if m]
        if not frames:
            continue
        labels = []
        for index, frame in enumerate(frames):
            dso = frame["dso"]
            if dso == "inlined":  # the next frame at the same address is the enclosing function
                dso = next(
                    (f["dso"] for f in frames[index + 1 :] if f["ip"] == frame["ip"] and f["dso"] != "inlined"), ""
                )
            labels.append(_label(frame["symbol"], dso))
        while labels and labels[-1].startswith(_UNKNOWN):  # unresolved start-up frames below main
            labels.pop()
        if labels:
            stacks[tuple(reversed(labels))] += 1
    return stacks


@functools.lru_cache(maxsize=1 << 16)  # a run's ~18,000 frames have a few thousand distinct labels
def _label(symbol: str, dso: str) -> str:
    name = _RUST_HASH.sub("", re.sub(r"\+0x[0-9a-f]+$", "", symbol)) or _UNKNOWN
    library = os.path.basename(dso) if dso and not dso.startswith("[") else dso
    return f"{name} ({library})" if library else name


def perf_version(perf: str) -> str:
    try:
        return subprocess.run([perf, "version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "perf"
