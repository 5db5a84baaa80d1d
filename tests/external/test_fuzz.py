"""Equivalence fuzzing end to end: real worker processes, real Hypothesis, small benchmark files."""

import os
import shutil
import subprocess
import sys

import pytest
from support.fuzz_shared import STRINGS, fuzz
from support.paths import ROOT

SRC = ROOT / "src"


def _python_without_hypothesis():
    for candidate in ("/usr/bin/python3", shutil.which("python3.11"), shutil.which("python3.12")):
        if candidate and os.path.exists(candidate):
            probe = subprocess.run([candidate, "-c", "import hypothesis"], capture_output=True)
            if probe.returncode != 0 and sys.version_info >= (3, 10):
                return candidate
    return None


def test_without_hypothesis_generated_inputs_are_skipped_and_patterns_still_run(bench_file, monkeypatch):
    python = _python_without_hypothesis()
    if python is None:
        pytest.skip("no interpreter without hypothesis on this machine")
    monkeypatch.setenv("PYTHONPATH", str(SRC))
    path = bench_file(STRINGS)
    result = fuzz(path, "ref", python=python)
    assert result.status == "equivalent", result
    assert result.notes[0] == f"generated inputs skipped: hypothesis not installed for {python}"
    assert result.calls > 0
    assert fuzz(path, "id_memo", python=python).pattern == "id-reuse"
