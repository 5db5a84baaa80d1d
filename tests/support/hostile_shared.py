"""What the tiers of test_hostile.py share (split by tier from one file)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.cli import run_perflab


def perflab(directory: Path, command: str, *more: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``perflab COMMAND MORE...`` run in ``directory`` (COMMAND split at spaces)."""
    return run_perflab(*command.split(), *more, cwd=directory, timeout=timeout)
