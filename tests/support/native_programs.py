"""Real native programs for the tests, compiled once per test session (g++ is one of the
compilers present wherever the suite runs; without it, the tests that need it are skipped)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support.paths import TESTS

SOURCES = TESTS / "native"


def compile_cpp(name: str, directory: Path, *flags: str) -> Path:
    """``tests/native/NAME.cpp`` built into ``directory`` (reused when already there)."""
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ is not installed: the native-program tests need a C++ compiler")
    binary = directory / name
    if not binary.exists():
        subprocess.run([compiler, "-O2", *flags, "-o", binary, SOURCES / f"{name}.cpp"], check=True)
    return binary
