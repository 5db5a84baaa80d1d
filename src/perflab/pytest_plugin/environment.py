"""What the plugin's modules share: its warning, reading pytest-benchmark's options, whether
this process is a pytest-xdist worker, and the names --perflab-rev's processes meet by."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

REVISIONS_OPTION = "--perflab-rev"
# In the pytest process that runs a test on one revision for --perflab-rev: "read-fd,write-fd" of
# its pipe to the session that times it (perflab.pytest_plugin.revisions).
REVISION_PIPE = "PERFLAB_PYTEST_REVISION_PIPE"


class PerflabBenchmarkWarning(pytest.PytestWarning):
    """A benchmark was not timed, or the fixture was not used."""


def xdist_worker(config: pytest.Config) -> str | None:
    """The name of the pytest-xdist worker running this session (gw0, ...), or None. Read from the
    config xdist gives its workers, not from PYTEST_XDIST_WORKER: a pytest started inside a worker's
    test (a subprocess) inherits that variable but is no worker, and its benchmarks must be timed."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput.get("workerid") if workerinput else None


def warn(message: str) -> None:
    warnings.warn(PerflabBenchmarkWarning(message), stacklevel=3)


def option(config: pytest.Config, name: str, default: Any = None) -> Any:
    """A pytest-benchmark option, whoever declared it (pytest-benchmark or this plugin)."""
    return config.getoption(name, default)
