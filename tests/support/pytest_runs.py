"""Running pytest on generated test files, in a real subprocess, for the plugin's tests."""

import os
import subprocess
import sys

# A benchmark stops at its first look at the interval (10 values) or after 0.05 s of values.
FAST = ["--benchmark-max-time", "0.05", "--perflab-precision", "50"]


def run_pytest(directory, *args, check=False, env=None, timeout=300) -> subprocess.CompletedProcess:
    """``python -m pytest`` in ``directory`` (its own results store), with perflab's plugin installed;
    ``env``'s variables set to None are unset."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-W",
            "ignore::DeprecationWarning",
            *map(str, args),
        ],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={
            name: value
            for name, value in {
                **_outside_xdist(),
                "PERFLAB_DB": str(directory / "perflab.db"),
                "COLUMNS": "200",
                **(env or {}),
            }.items()
            if value is not None
        },
    )
    if check and done.returncode != 0:
        raise AssertionError(f"pytest exited with {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}")
    return done


def _outside_xdist() -> dict[str, str]:
    """This environment without the variables of a pytest-xdist worker (when this suite runs with
    -n): the pytest started here is no worker, and pytest-benchmark would stay off if it looked so."""
    return {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_XDIST_")}
