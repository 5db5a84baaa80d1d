"""perflab used as a hostile user would (issue 11): every probe through the real command line, in
real subprocesses, with real git repositories, SQLite files and signals. What each test holds:
no input is overwritten, nothing measured is lost, a signal leaves no process or worktree behind,
and every bad input is one line naming it, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

from support.cli import QUICK
from support.external import skip_anywhere
from support.hostile_shared import perflab

USES_PACKAGE = """
import perflab

bench = perflab.Benchmark("six_versions")

@bench.case
def TEXT():
    return b"some bytes" * 10

@bench.contender
def ensure_str(data):
    import six
    return six.ensure_str(data)
"""


def test_compare_two_virtual_environments_with_two_versions_of_a_package(tmp_path):
    """The two environments are made by uv (a test requirement): a venv with pip in it and a pip
    install cost ~5 CPU-s each, uv's a fraction of one."""
    pythons = []
    uv = [sys.executable, "-m", "uv", "--quiet"]
    for version in ("1.15.0", "1.16.0"):
        venv = tmp_path / f"venv-{version}"
        subprocess.run([*uv, "venv", "--python", sys.executable, venv], check=True)
        pip = [*uv, "pip", "install", "--python", venv / "bin" / "python", f"six=={version}"]
        installed = subprocess.run(pip, capture_output=True, text=True, timeout=300)
        if installed.returncode != 0:
            skip_anywhere(f"PyPI not reachable: {installed.stderr[-200:]}")
        pythons.append(str(venv / "bin" / "python"))
    (tmp_path / "bench.py").write_text(USES_PACKAGE)
    sides = ["--python", pythons[0], "--python", pythons[1]]
    process = perflab(tmp_path, "compare bench.py --db store.db --json out.json", *sides, *QUICK)
    assert process.returncode == 0, process.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    assert all(cell["estimates"] for cell in result["cells"])
    measured_on = list(result["metadata"]["sides"].values())
    assert [side["packages"]["six"] for side in measured_on] == ["1.15.0", "1.16.0"]
    assert [side["python"]["executable"] for side in measured_on] == pythons
