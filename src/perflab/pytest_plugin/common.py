"""What the plugin's modules share: its warning, reading pytest-benchmark's options, and whether
this process is a pytest-xdist worker."""

from __future__ import annotations

import os
import warnings
from typing import Any

import pytest


class PerflabBenchmarkWarning(pytest.PytestWarning):
    """A benchmark was not timed, or the fixture was not used."""


def xdist_worker() -> str | None:
    """The name of the pytest-xdist worker running this process (gw0, ...), or None."""
    return os.environ.get("PYTEST_XDIST_WORKER")


def warn(message: str) -> None:
    warnings.warn(PerflabBenchmarkWarning(message), stacklevel=3)


def option(config: pytest.Config, name: str, default: Any = None) -> Any:
    """A pytest-benchmark option, whoever declared it (pytest-benchmark or this plugin)."""
    return config.getoption(name, default)
