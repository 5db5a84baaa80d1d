import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

# End-to-end runs stop by the rule (5 rounds at a loose precision), not by the clock, so that
# a loaded CI machine gets the same number of rounds, only later.
QUICK = ["--precision", "50", "--max-time", "60", "--values", "5", "--value-time", "0.002", "--timeout", "30"]

# pytest-benchmark's example tests (tests/data/pytest_benchmark_examples/) are run by
# test_pytest_plugin_peer.py in a scratch directory, under the plugin; not collected here.
collect_ignore_glob = ["data/*"]
# The postgres_server and postgres_url fixtures (a real PostgreSQL cluster, started once per session).
pytest_plugins = ["postgres_server"]


# Started in the background by a non-interactive shell (as a CI script may start it), pytest and
# every perflab it starts would ignore SIGINT, and the Ctrl-C tests would wait in vain. A handler
# here (not "ignore") is reset to the default in each child, as in a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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


def run_perflab(*args, timeout=120, env=None, **kwargs) -> subprocess.CompletedProcess:
    """The real command line, in a real subprocess (``env``: variables to set or change)."""
    return subprocess.run(
        [sys.executable, "-m", "perflab", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        **kwargs,
    )


def load_json(path):
    return json.loads(Path(path).read_text())


def git_repository(path: Path) -> Callable[..., None]:
    """A fresh git repository at ``path`` with a test identity; returns ``git(*args)`` for it."""
    path.mkdir(parents=True, exist_ok=True)

    def git(*args) -> None:
        subprocess.run(["git", "-C", path, *args], check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    return git


CHROMIUM = Path("/usr/bin/chromium")
# Debian's chromium as root in a closed network: no sandbox, and no background connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    """Headless Debian chromium driven by Playwright (never a browser Playwright downloads)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
