"""Tests that need a tool from outside Python (PostgreSQL, chromium, perf, valgrind, py-spy, a
compiler, another interpreter) skip where the tool is missing on a developer's machine. In CI
(``PERFLAB_TEST_REQUIRE_ALL=1``, set by .ci/run) such a skip is a failure: a silently skipped test
would hide a missing install step. Skips that depend on the machine rather than on an install
step say so with ``skip_anywhere``.
"""

from __future__ import annotations

import glob
import os

import pytest

REQUIRE_ALL = "PERFLAB_TEST_REQUIRE_ALL"
_ANYWHERE = "not applicable on this machine: "


def skip_anywhere(reason: str) -> None:
    """Skip, in CI too: the test cannot apply here whatever is installed (a file system without
    chattr, no network)."""
    pytest.skip(_ANYWHERE + reason)


def fail_skip_in_ci(report: pytest.TestReport) -> None:
    """Under PERFLAB_TEST_REQUIRE_ALL=1, turn a skipped test into a failure unless it was skipped
    with ``skip_anywhere``."""
    if os.environ.get(REQUIRE_ALL) != "1" or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if _ANYWHERE in reason:
        return
    report.outcome = "failed"
    report.longrepr = f"skipped, but {REQUIRE_ALL}=1 requires every external tool: {reason}"


def other_python(version: str) -> str | None:
    """pyenv's python``version`` if it is installed here (the shims run only the selected version)."""
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(glob.glob(f"{pyenv}/versions/{version}.*/bin/python{version}"))
    return found[-1] if found else None
