import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# End-to-end runs stop by the rule (5 rounds at a loose precision), not by the clock, so that
# a loaded CI machine gets the same number of rounds, only later.
QUICK = ["--precision", "50", "--max-time", "60", "--values", "5", "--value-time", "0.002", "--timeout", "30"]


@pytest.fixture(autouse=True, scope="session")
def private_results_store(tmp_path_factory):
    """Runs made by tests are stored in a throwaway database, never in the project's."""
    os.environ["PERFLAB_DB"] = str(tmp_path_factory.mktemp("store") / "perflab.db")


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
