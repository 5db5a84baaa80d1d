"""What the tiers of test_hostile.py share (split by tier from one file)."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

from support.cli import run_perflab
from support.hostile_files import processes_marked


def perflab(directory: Path, command: str, *more: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``perflab COMMAND MORE...`` run in ``directory`` (COMMAND split at spaces)."""
    return run_perflab(*command.split(), *more, cwd=directory, timeout=timeout)


def profile_stopped(directory: Path, *args: str, said: str) -> subprocess.CompletedProcess:
    """``perflab profile ARGS`` in ``directory``, which something stops (the budget): exit 1, its
    last line ends with ``said``, and no process it started is left running."""
    marker = uuid.uuid4().hex
    result = run_perflab("profile", *args, cwd=directory, env={"HOSTILE_MARKER": marker}, timeout=100)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().endswith(said), result.stderr
    assert processes_marked(marker) == []
    return result
