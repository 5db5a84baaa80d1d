import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Budgets for end-to-end runs: enough rounds to exercise the statistics, short enough for CI.
QUICK = ["--max-time", "3", "--precision", "50", "--timeout", "20"]


@pytest.fixture
def bench_file(tmp_path):
    """Write a benchmark file from source text (dedented) and return its path."""
    def write(source: str, name: str = "bench.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source))
        return path
    return write


def run_perflab(*args, timeout=120, **kwargs) -> subprocess.CompletedProcess:
    """The real command line, in a real subprocess."""
    return subprocess.run([sys.executable, "-m", "perflab.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "COLUMNS": "200"}, **kwargs)


def load_json(path):
    return json.loads(Path(path).read_text())
