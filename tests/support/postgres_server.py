"""A real PostgreSQL server for the tests: a throwaway cluster in a temporary directory.

Debian's postgresql package (``.ci/run`` installs it when missing) provides initdb and pg_ctl;
PostgreSQL refuses to run as root, so as root (CI) they run as the ``postgres`` user. The server
listens on a free port of 127.0.0.1 with trust authentication; each test gets a fresh database.
Without PostgreSQL the tests that need it are skipped (a failure in CI: support.external). fsync is
off: a throwaway cluster needs no durability, and the tests check behaviour, not speed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.served_web import free_port

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
_databases = itertools.count()


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Cluster:
    """A PostgreSQL cluster in a new temporary directory, on a free port of 127.0.0.1: started,
    and stopped (``stop``: as a crash would, ``-m immediate``) and started again on the same data."""

    def __init__(self) -> None:
        if not BIN_DIRS:
            raise RuntimeError("PostgreSQL is not installed (/usr/lib/postgresql/*/bin): apt-get install -y postgresql")
        self.bin_dir = BIN_DIRS[0]
        # Not under pytest's tmp_path: /tmp/pytest-of-root is closed to the postgres user.
        self.home = Path(tempfile.mkdtemp(prefix="perflab-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.home, "postgres", "postgres")
        self.data, self.port = self.home / "data", free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}"  # no database name
        subprocess.run(
            _as_postgres(
                [str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync"]
            ),
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.home} -c fsync=off -c max_connections=100"
        started = subprocess.run(
            _as_postgres(
                [
                    str(self.bin_dir / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-l",
                    str(self.home / "log"),
                    "-w",
                    "start",
                ]
            ),
            capture_output=True,
            text=True,
        )
        if started.returncode != 0:
            log = (self.home / "log").read_text() if (self.home / "log").exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {started.stderr}\n{log}")

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]),
            check=False,
            capture_output=True,
        )

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.home, ignore_errors=True)


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a PostgreSQL cluster in a new temporary directory; yield its base URL (no database
    name); stop it and remove everything afterwards. benchmarks/team_scale.py uses it too."""
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster.url
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def postgres_server():
    """The base URL (no database name) of a PostgreSQL server started for this test session."""
    if not BIN_DIRS:
        pytest.skip("PostgreSQL is not installed (/usr/lib/postgresql/*/bin): apt-get install -y postgresql")
    with throwaway_cluster() as url:
        yield url


def new_database(server: str) -> str:
    """The URL of a new, empty database on ``server``."""
    import psycopg

    name = f"perflab_test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return f"{server}/{name}"


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh, empty PostgreSQL database for one test."""
    return new_database(postgres_server)
