"""Which perf trampoline a worker's interpreter runs, and the names of 3.12's trampoline frames.

CPython 3.13+ runs ``-X perf_jit`` and writes the unwinding information perf needs itself. CPython
3.12 on x86-64 runs ``-X perf``, and the worker writes that information for it
(perflab.bench.worker.perf_jitdump): one injected ELF file per arena of trampolines, whose single
symbol perf gives every frame in the arena. This module names those frames back from the
interpreter's perf map (``/tmp/perf-PID.map``), by address, as ``py::qualname:file`` like 3.13's,
before perflab.profile.perf_sampler relabels them as py-spy does.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import subprocess
from dataclasses import dataclass

from perflab.bench.worker import perf_jitdump

# Where perf inject puts a jitted function's code in the ELF file it writes (genelf.h's GEN_ELF_TEXT_OFFSET:
# the ELF64 header and one program header, rounded up to 16): perf script prints an address in it as that
# offset plus the address's offset in the code.
ELF_TEXT_OFFSET = 0x80
_ARENA_FRAME = re.compile(
    r"^(?P<indent>\s*)(?P<ip>[0-9a-f]+) " + re.escape(perf_jitdump.ARENA_PREFIX) + r"(?P<start>[0-9a-f]+)\] ",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Trampoline:
    env: dict[str, str]  # the worker's environment
    description: str  # for the profile's header


PERF_JIT = Trampoline({"PYTHON_PERF_JIT_SUPPORT": "1"}, "-X perf_jit")
PERF_WITH_JITDUMP = Trampoline({"PYTHONPERFSUPPORT": "1", perf_jitdump.ENV: "1"}, "-X perf with perflab's jitdump")
SUPPORTED = "CPython 3.13+ built with the perf trampoline, or CPython 3.12's on Linux x86-64"

# Run under the worker's interpreter (which need not have perflab): its version and machine, whether it has
# 3.13's trampoline, and, for 3.12 on x86-64, its trampoline's code (to compare with the one perflab describes).
_PROBE = """
import ctypes, json, platform, sys, sysconfig
built = bool(sysconfig.get_config_var("PY_HAVE_PERF_TRAMPOLINE"))
code = None
if sys.version_info[:2] == (3, 12) and built and sys.platform == "linux" and platform.machine() == "x86_64":
    try:
        interpreter = ctypes.CDLL(None)
        start, end = (ctypes.cast(getattr(interpreter, name), ctypes.c_void_p).value
                      for name in ("_Py_trampoline_func_start", "_Py_trampoline_func_end"))
        code = ctypes.string_at(start, end - start).hex()
    except (AttributeError, OSError):  # not exported: nothing to compare
        pass
print(json.dumps([sys.version.split()[0], platform.machine(), sys.version_info >= (3, 13) and built, code]))
"""


@functools.cache
def interpreter_trampoline(python: str) -> Trampoline | str:
    """The trampoline perf can unwind through under ``python``, or why there is none (one line)."""
    try:
        done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return f"--sampler perf: cannot run {python}: {error}"
    try:
        version, machine, perf_jit, code = json.loads(done.stdout)
    except ValueError:  # not CPython 3, or its probe failed
        version, machine, perf_jit, code = "unknown", "", False, None
    if perf_jit:
        return PERF_JIT
    if code == perf_jitdump.TRAMPOLINE.hex():
        return PERF_WITH_JITDUMP
    differs = " whose trampoline is not the x86-64 code perflab describes" if code else ""
    return (
        f"--sampler perf needs {SUPPORTED}; {python} is {version}{differs} on {machine or 'unknown'}: "
        "give --python /path/to/python3.13, or use --sampler py-spy"
    )


def name_arena_frames(script: str, map_path: str) -> str:
    """``perf script`` output with each frame in an arena of 3.12 trampolines named ``py::qualname:file``
    from the worker's perf map (``map_path``); unchanged where there is none."""
    # (a substring test first: the regular expression over a run's text took ~18 ms, mostly for 3.13's, which has none)
    entries = perf_jitdump.trampolines(map_path) if perf_jitdump.ARENA_PREFIX in script else []
    if not entries:
        return script
    starts = [address for address, _, _ in entries]

    def name(match: re.Match[str]) -> str:
        address = int(match["start"], 16) + int(match["ip"], 16) - ELF_TEXT_OFFSET
        index = bisect.bisect_right(starts, address) - 1
        if index < 0 or address >= starts[index] + entries[index][1]:
            return match[0]
        return f"{match['indent']}{match['ip']} {entries[index][2]} "

    return _ARENA_FRAME.sub(name, script)
