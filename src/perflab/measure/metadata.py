"""What a result needs to be interpreted later: interpreter, machine, code revision."""

from __future__ import annotations

import inspect
import json
import os
import platform
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import perflab
from perflab import git
from perflab.credentials import mask_credentials


def _interpreter_facts() -> dict[str, Any]:
    """The running interpreter's version and build (standard library only: sent as source to
    another interpreter by ``interpreter_info``)."""
    import platform
    import sys
    import sysconfig

    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "build": sys.version.replace("\n", " "),
        "compiler": platform.python_compiler(),
        "debug_build": bool(sysconfig.get_config_var("Py_DEBUG")),
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "jit": bool(getattr(getattr(sys, "_jit", None), "is_enabled", lambda: False)()),
    }


# Seconds another interpreter may take to say what it is (a cold start of a large environment takes ~1 s).
PROBE_TIMEOUT = 20.0


def interpreter_info(python: str = sys.executable) -> dict[str, Any]:
    """Version and build of the interpreter that runs the workers (which may not be the one
    running perflab)."""
    if python == sys.executable:  # perflab's own: asked here, not in a process of its own
        return _interpreter_facts()
    probe = f"from __future__ import annotations\nimport json\n{inspect.getsource(_interpreter_facts)}"
    probe += "\nprint(json.dumps(_interpreter_facts()))"
    # In a session of its own: an interpreter that does not answer (a wrapper script that hangs)
    # is stopped with whatever it started, which subprocess.run's timeout leaves running (and
    # whose open pipe then kept run() waiting past its timeout).
    process = subprocess.Popen(
        [python, "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = process.communicate(timeout=PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        process.wait()
        raise subprocess.TimeoutExpired(python, PROBE_TIMEOUT) from None
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, python, out, err)
    return json.loads(out)


def machine_info() -> dict[str, Any]:
    return {
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "os": platform.platform(),
        "kernel": platform.release(),
        "hostname": platform.node(),
    }


def busy_processes() -> float | None:
    """The 1-minute load average: runnable processes competing for the CPUs."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_info(directory: str | Path) -> dict[str, Any] | None:
    """Commit, branch and dirty flag of the repository holding ``directory``, if any."""
    return git.head(directory)


def side_info(benchmark_file: str | Path, python: str) -> dict[str, Any]:
    """What differs between sides: the interpreter and the revision of the benchmark's code."""
    return {"python": interpreter_info(python), "git": git_info(Path(benchmark_file).resolve().parent)}


def collect(benchmark_file: str | Path, python: str = sys.executable) -> dict[str, Any]:
    return {
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "perflab_version": perflab.__version__,
        "python": interpreter_info(python),
        "machine": machine_info(),
        "git": git_info(Path(benchmark_file).resolve().parent),
        "load_average_at_start": busy_processes(),
        "command": mask_credentials(" ".join([Path(sys.argv[0]).name, *sys.argv[1:]])),  # --db may hold a password
    }
