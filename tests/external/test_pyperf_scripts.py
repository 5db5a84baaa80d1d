"""pyperf scripts run unchanged by perflab: the Runner's API, pyperformance's real benchmarks,
comparisons across revisions and interpreters, and bad input."""

import glob
import sys

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.pyperf_scripts_shared import SCRIPT, write_script  # noqa: F401 - fixtures are found by name

# Another CPython (pyenv's real binaries; its shims may name versions that are not installed).
OTHER_PYTHON = next(iter(sorted(glob.glob("/root/.pyenv/versions/3.1[2-9]*/bin/python3.1[2-9]"))), None)


@pytest.mark.skipif(OTHER_PYTHON is None, reason="needs a second interpreter (python3.12)")
def test_compare_interpreters_without_pyperf_installed_there(tmp_path):
    """The other interpreter sees only perflab (no pyperf): the stand-in module serves the script."""
    script = write_script(tmp_path)
    done = run_perflab(
        "compare",
        script,
        "--python",
        sys.executable,
        "--python",
        OTHER_PYTHON,
        "--case",
        "sum",
        *QUICK,
        "--json",
        tmp_path / "c.json",
    )
    assert done.returncode == 0, done.stderr
    result = load_json(tmp_path / "c.json")
    assert len(result["comparisons"]) == 1
    assert {e["status"] for e in result["equivalence"]} == {"reference", "equivalent"}
