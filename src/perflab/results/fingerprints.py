"""Fingerprints of where a run ran: runs are comparable only on the same kind of machine and the
same interpreter build, so histories and the gate group and compare runs by these."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def machine_fingerprint(machine: dict[str, Any]) -> str:
    """Same CPU model, core count, OS and kernel: timings are comparable (the host name is not part
    of it, so identical CI runners with different names compare)."""
    return _fingerprint({k: machine.get(k) for k in ("cpu_model", "cpu_count", "os", "kernel")})


def python_fingerprint(python: dict[str, Any]) -> str:
    """Same implementation, version and build (compiler, flags): the interpreter is the same."""
    return _fingerprint(
        {k: python.get(k) for k in ("implementation", "version", "build", "debug_build", "free_threaded", "jit")}
    )


def _fingerprint(fields: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
