"""Linux perf as the sampler of a benchmark's profiling worker: Python and C frames at 1 kHz.

perf samples in the kernel (``cpu-clock``, a software event: it works in virtual machines) and
copies each sample's stack without stopping the target; it unwinds afterwards. For Python frames
the worker runs CPython 3.13+'s ``-X perf_jit`` (``PYTHON_PERF_JIT_SUPPORT=1``): each Python
function runs through a small trampoline whose unwinding information the interpreter writes to
``/tmp/jit-PID.dump``, so ``perf record --call-graph dwarf`` unwinds through Python calls as
through C ones, and ``perf inject --jit`` names the trampolines ``py::qualname:file``. 3.12's
``-X perf`` publishes names only (a perf map, no unwinding information): DWARF unwinding stops at
the innermost Python function, and frame pointers give nothing through interpreters built
without them (pyenv's), so on x86-64 the worker writes the unwinding information itself
(perflab.profile.perf_trampolines); elsewhere 3.12 is profiled by py-spy (docs: "Native frames").

perf starts the worker with sampling off and samples only once it is ready, so set-up is not
sampled. The stacks are read by perflab.profile.native_perf's parser and relabelled as py-spy
labels them, so that profiles, diffs and merges line up with py-spy's: a Python frame is
``qualname (file:first line)``; the interpreter's own frames between Python calls (evaluation
loop, calls, trampolines) are dropped as py-spy drops them; kernel frames are dropped (their time
stays with the frame that entered the kernel, as py-spy sees it); C frames keep perf's
``function (library)``.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import inspect
import os
import re
import selectors
import shutil
import subprocess
import tempfile
import types
from collections import Counter
from pathlib import Path

from perflab.bench.worker.perf_jitdump import perf_map
from perflab.profile.folded import Stack
from perflab.profile.frames import Frame, parse_frame
from perflab.profile.native_perf import RECORD_EXIT, NativeProfilerUnavailable, check_perf, parse_script
from perflab.profile.perf_inlines import with_inlined
from perflab.profile.perf_trampolines import PERF_JIT, interpreter_trampoline, name_arena_frames
from perflab.profile.processors import MEASURED_REGION, is_measured_region
from perflab.profile.sampler import SamplerUnavailable

# The worker's environment under perf: the trampoline with unwinding information (CPython 3.13+).
TRAMPOLINE_ENV = PERF_JIT.env
# Bytes of the user stack perf copies per sample (--call-graph dwarf,SIZE), from the sampled frame
# up: the kernel copies them while the target waits, and perf writes and reads them back. A sample
# needs its stack only up to measured_region (the harness above it is trimmed): json_dumps NESTED's
# fit in 8 kB (in 4 kB, 2% of them did not), perflab's harness and the interpreter's start above do
# not, which is no loss. Interleaved at 1 kHz here, copying 8 kB distorted the target about 0.7x as
# much as 16 kB, 4 kB about 0.3x (benchmarks/perf_sampler.py). A run whose samples lost
# measured_region (deeper operations) is left out, and the later runs copy 4x more, up to 65528,
# perf's largest (~60 Python frames need over 32 kB).
STACK_DUMP, LARGEST_STACK_DUMP = 8192, 65528
# Frames perf script unwinds a sample to, at most: its default, kernel.perf_event_max_stack (127), cut
# stacks of ~25 Python frames (each is ~5 native ones under -X perf_jit: evaluation loop, trampoline, calls)
# in the middle, and a profile then left their samples out (they did not reach measured_region).
MAX_STACK = 10000
# A run with more of its samples truncated than this makes the following runs' dump the largest.
TRUNCATED_SHARE = 0.01
# The outermost frame of a whole stack: the process's entry (the interpreter's _start, libc's
# __libc_start_call_main when _start has no unwinding information) or a thread's start.
_ROOTS = frozenset({"_start", "__libc_start_call_main", "__libc_start_main", "start_thread", "clone", "clone3"})
_START_TIMEOUT = 30.0  # seconds perf may take to answer on its control pipe
_READ_TIMEOUT = 120.0  # seconds perf inject or perf script may take
_JIT_DIR = "/tmp"  # where CPython writes jit-PID.dump, and perf inject the code it describes
_PYTHON_PREFIX = "py::"
_MEASURED_REGION = f"{_PYTHON_PREFIX}{MEASURED_REGION}:"  # its frames' name in perf's stacks
# perf's configuration for reading a recording (perf-config(1): /dev/null disables the build-id cache)
NO_BUILDID_CACHE = "[buildid]\n\tdir = /dev/null\n"
_INTERPRETER = re.compile(r"^(lib)?python\d+\.\d+")  # the interpreter's binary or libpython


@functools.cache
def perf_unavailable(python: str) -> str | None:
    """Why ``--sampler perf`` cannot profile under ``python`` (one line saying what to do), or None."""
    try:
        check_perf()
    except NativeProfilerUnavailable as error:
        return f"--sampler perf: {error}"
    trampoline = interpreter_trampoline(python)
    return trampoline if isinstance(trampoline, str) else None


class PerfRecording:
    """One ``perf record`` that starts a profiling worker (``prefix`` goes before its command) with
    sampling off, samples between ``enable`` and ``disable``, and is read by ``stacks`` once the
    worker has exited (perf then writes its data).

    perf starts the worker rather than attaching to it: the jit dump is found through the worker's
    mapping of it, which perf sees reliably only as it happens (attached, ``perf record -p`` missed
    it in most runs here under load, and stacks then stop at the innermost Python frame).
    """

    def __init__(self, rate: int, stack_dump: int = STACK_DUMP):
        self._perf = check_perf()
        self.stack_dump = stack_dump
        self.truncated = 0  # samples whose stack did not fit in the dump, once read
        self._scratch = tempfile.mkdtemp(prefix="perflab-perf-")
        self.data = os.path.join(self._scratch, "perf.data")
        self.pid: int | None = None
        control, ack = os.path.join(self._scratch, "control"), os.path.join(self._scratch, "ack")
        os.mkfifo(control)
        os.mkfifo(ack)
        # Both ends open read-write: neither side waits for the other to open its pipe.
        self._control, self._ack = os.open(control, os.O_RDWR), os.open(ack, os.O_RDWR)
        # perf inject caches every jitted function it writes (thousands a run, with their libraries: ~2,000
        # files) in a build-id cache unless this says not to, and deleting them took 12-14 s a run here
        self._config = os.path.join(self._scratch, "perfconfig")
        Path(self._config).write_text(NO_BUILDID_CACHE)
        self.prefix = [self._perf, "record", "-q", "-k", "1", "-e", "cpu-clock", "-F", str(rate), "-N", "-D", "-1"]
        self.prefix += [
            "--call-graph",
            call_graph(stack_dump),
            *RECORD_EXIT,
            "--control",
            f"fifo:{control},{ack}",
            "-o",
            self.data,
        ]
        self.prefix += ["--"]

    def enable(self, pid: int, cpu: int | None = None) -> None:
        """Start sampling the worker ``pid`` (set up, waiting for its profiling request); perf runs on ``cpu``
        (not the target's: reading samples then takes no time from it). SamplerUnavailable if perf does not answer."""
        self.pid = pid
        if cpu is not None:
            with contextlib.suppress(OSError, ValueError, IndexError):  # perf is the worker's parent
                parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                os.sched_setaffinity(parent, {cpu})
        self._command("enable")

    def disable(self) -> None:
        self._command("disable")

    def _command(self, command: str) -> None:
        os.write(self._control, command.encode() + b"\n")
        with selectors.DefaultSelector() as selector:
            selector.register(self._ack, selectors.EVENT_READ)
            if not selector.select(_START_TIMEOUT) or b"ack" not in os.read(self._ack, 64):
                raise SamplerUnavailable(f"perf record did not answer {command!r} within {_START_TIMEOUT:g} s")

    def stacks(self) -> tuple[Counter[Stack], int]:
        """The samples, once the worker and perf have exited: stacks in py-spy's labels, root first
        (sampling errors: none counted); ``truncated`` counts those whose stack did not fit in the dump."""
        if not os.path.exists(self.data):
            raise SamplerUnavailable("perf record wrote no data")
        injected = os.path.join(self._scratch, "jit.data")
        self._run("inject", "--jit", "-i", self.data, "-o", injected)
        script = self._run(
            "script", "-i", injected, "--no-inline", "--max-stack", str(MAX_STACK), "-F", "comm,tid,ip,sym,dso"
        )
        text = with_inlined(script.decode("utf-8", "replace"))
        if self.pid is not None:  # 3.12: its trampolines' names are in its perf map
            text = name_arena_frames(text, perf_map(self.pid))
        stacks = parse_script(text)
        self.truncated = truncated(stacks)
        return python_stacks(stacks), 0

    def _run(self, *arguments: str) -> bytes:
        done = subprocess.run(
            [self._perf, *arguments],
            capture_output=True,
            env={**os.environ, "PERF_CONFIG": self._config},  # in place of the user's: no build-id cache
            timeout=_READ_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            raise SamplerUnavailable(f"perf {arguments[0]} failed: {_last_line(done.stderr)}")
        return done.stdout

    def cleanup(self) -> None:
        for descriptor in (self._ack, self._control):
            with contextlib.suppress(OSError):
                os.close(descriptor)
        shutil.rmtree(self._scratch, ignore_errors=True)
        if (
            self.pid is not None
        ):  # the worker's jit dump (3.12: and perf map), and the code perf inject wrote (by its pid)
            jitted = glob.glob(f"{_JIT_DIR}/jitted-{self.pid}-*.so")
            for path in [f"{_JIT_DIR}/jit-{self.pid}.dump", perf_map(self.pid), *jitted]:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def call_graph(stack_dump: int) -> str:
    return f"dwarf,{stack_dump}"


def truncated(stacks: Counter[Stack]) -> int:
    """Samples of perf's stacks (``native_perf.parse_script``, root first) cut before measured_region:
    the unwinding stopped before the thread's root without passing measured_region, so the stack was
    deeper than the dump perf copied and the sample cannot be placed in the operation (it is left out
    with the harness's samples). Samples cut above measured_region lose only the harness."""
    return sum(
        count
        for stack, count in stacks.items()
        if parse_frame(stack[0]).name not in _ROOTS and not any(_is_measured_region(label) for label in stack)
    )


def _is_measured_region(label: str) -> bool:
    """Whether a frame of perf's stacks is the worker's measured_region (read as py-spy labels it)."""
    return _MEASURED_REGION in label and is_measured_region(_label(parse_frame(label)))


class StacksTooDeep(Exception):
    """The operation's stacks do not fit in perf's largest stack dump; the message says what to do."""


def too_truncated(truncated: int, samples: int) -> bool:
    """Whether a run lost too many of its ``samples`` (all it took) to a short stack dump to be kept:
    left out, its shares would under-count the operation's deepest code."""
    return truncated > TRUNCATED_SHARE * samples


def next_stack_dump(stack_dump: int, truncated: int, samples: int) -> int:
    """The dump size for the runs after one that used ``stack_dump`` and had ``truncated`` of its
    ``samples`` truncated: 4x larger (up to the largest) when it was too_truncated; StacksTooDeep if it
    was the largest."""
    if not too_truncated(truncated, samples):
        return stack_dump
    if stack_dump >= LARGEST_STACK_DUMP:
        raise StacksTooDeep(
            f"{truncated} of {samples} samples had stacks deeper than perf can copy ({LARGEST_STACK_DUMP} bytes, "
            "its largest stack dump): use --sampler py-spy"
        )
    return min(4 * stack_dump, LARGEST_STACK_DUMP)


def python_stacks(stacks: Counter[Stack]) -> Counter[Stack]:
    """perf's stacks (``native_perf.parse_script``) in py-spy's labels: see the module's docstring."""
    relabelled: Counter[Stack] = Counter()
    for stack, count in stacks.items():
        frames = [parse_frame(label) for label in stack]
        frames = [frame for frame in frames if not frame.file.startswith("[kernel")]
        # The interpreter's frames are kept only below a native function the innermost Python frame called
        # (unicode_dealloc under encoder_call); its evaluation loop, calls and builtins are the Python frame's time.
        python = max((i for i, frame in enumerate(frames) if frame.name.startswith(_PYTHON_PREFIX)), default=-1)
        native = next((i for i, frame in enumerate(frames) if i > python and not _is_interpreter(frame)), len(frames))
        kept = [frame for i, frame in enumerate(frames) if i > native or not _is_interpreter(frame)]
        relabelled[tuple(_label(frame) for frame in kept)] += count
    return relabelled


def _is_interpreter(frame: Frame) -> bool:
    return bool(_INTERPRETER.match(frame.file)) and not frame.name.startswith(_PYTHON_PREFIX)


def _label(frame: Frame) -> str:
    """``py::qualname:file`` as py-spy's ``qualname (file:first line)``; other frames unchanged."""
    if not frame.name.startswith(_PYTHON_PREFIX):
        return frame.label
    qualname, _, file = frame.name[len(_PYTHON_PREFIX) :].partition(":")
    return Frame(qualname, file, first_lines(file).get(qualname)).label


@functools.lru_cache(maxsize=256)
def first_lines(file: str) -> dict[str, int]:
    """The first line of every function and class body of a source file, by qualified name: the
    line py-spy gives a frame (its code object's ``co_firstlineno``: a decorated function's first
    decorator), found by compiling the file. Empty for a file that cannot be read or compiled
    (``<frozen ...>``, syntax newer than this interpreter's): its frames then carry no line."""
    try:
        code = compile(Path(file).read_bytes(), file, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError):
        return {}
    lines: dict[str, int] = {}
    pending: list[tuple[types.CodeType, str]] = [(code, "")]
    while pending:
        code, prefix = pending.pop()
        qualname = getattr(code, "co_qualname", None) or prefix + code.co_name  # co_qualname: 3.11+
        # a name defined twice (two lambdas of one function) is given its first definition's line
        lines[qualname] = min(lines.get(qualname, code.co_firstlineno), code.co_firstlineno)
        if code.co_flags & inspect.CO_OPTIMIZED:  # a function: what it defines is local to it
            inner = qualname + ".<locals>."
        else:  # a class body, or the module (whose definitions have no prefix)
            inner = "" if qualname == "<module>" else qualname + "."
        pending.extend((constant, inner) for constant in code.co_consts if isinstance(constant, types.CodeType))
    return lines


def _last_line(stderr: bytes | str | None) -> str:
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else (stderr or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"
