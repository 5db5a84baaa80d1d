import compileall
import os
import signal
import textwrap
from pathlib import Path

import pytest
from support.external import fail_skip_in_ci

import perflab

# pytest-benchmark's example tests (tests/data/pytest_benchmark_examples/) are run by
# test_pytest_plugin_peer.py in a scratch directory, under the plugin; not collected here.
collect_ignore_glob = ["data/*"]
# The postgres_server and postgres_url fixtures (a real PostgreSQL cluster, started once per session)
# and the browser fixture (headless chromium).
pytest_plugins = ["support.postgres_server", "support.browser", "support.scripted_workers"]


# Started in the background by a non-interactive shell (as a CI script may start it), pytest and
# every perflab it starts would ignore SIGINT, and the Ctrl-C tests would wait in vain. A handler
# here (not "ignore") is reset to the default in each child, as in a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    fail_skip_in_ci(outcome.get_result())


@pytest.fixture(autouse=True, scope="session")
def compiled_perflab():
    """perflab's modules compiled to bytecode once, as pip compiles a regular install. From an
    editable install with PYTHONDONTWRITEBYTECODE set (as on CI's machine) no .pyc is ever written,
    and every perflab process the tests start (the command line and each of its workers, ~20 for a
    quick run) compiled its modules from source first: about a fifth of a quick run's CPU time."""
    compileall.compile_dir(Path(perflab.__file__).parent, quiet=1)


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
