"""`perflab serve` and `perflab publish` on the command line: what they refuse, and what they print."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

from support.cli import run_perflab
from support.web_store import build_store


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "perflab.db"
    build_store(path)
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--host", "0.0.0.0"], "pass --token"),
        (["--token", "short"], "at least 16 characters"),
        (["--port", "70000"], "not a TCP port"),
        (["--port", "-1"], "not a TCP port"),
    ],
)
def test_serve_refuses_unsafe_or_bad_options(db, args, message):
    result = run_perflab("serve", "--db", db, *args, timeout=60)
    assert result.returncode == 2 and message in result.stderr


def test_serve_refuses_a_missing_database(tmp_path):
    result = run_perflab("serve", "--db", tmp_path / "absent.db", timeout=60)
    assert result.returncode == 2 and "no perflab database" in result.stderr
    assert not (tmp_path / "absent.db").exists()


def test_insecure_no_auth_is_said_loudly_and_serves_reads(db, tmp_path):
    # A long path with markup in it: the warning must name it as it is, on one line (a pipe is no
    # terminal, and rich used to break the message at 80 columns and read "[bold]" as a style).
    folder = tmp_path / ("a [bold]store[red] in a folder with a long name " * 2)
    folder.mkdir()
    db = shutil.copy(db, folder / "perflab.db")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perflab",
            "serve",
            "--db",
            str(db),
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--insecure-no-auth",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/series", timeout=5) as response:
                    assert response.status == 200
                    break
            except OSError:
                assert process.poll() is None
                time.sleep(0.2)
        else:
            pytest.fail("the server did not answer")
    finally:
        process.terminate()
        process.wait(timeout=30)
    warning = next(line for line in process.stderr.read().splitlines() if line.startswith("WARNING"))
    assert warning.startswith("WARNING: --insecure-no-auth: http://0.0.0.0:")
    assert f"serves {db} to anyone who can reach it, without a token." in warning


def test_serve_on_a_taken_port_is_one_line_and_exit_2(db):
    """It printed its serving line, then uvicorn's errno 98, and exited 3 (issue 42)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_perflab("serve", "--db", db, "--port", port, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == (
        f"perflab serve: error: cannot listen on http://127.0.0.1:{port}: Address already in use "
        "(another server there? pass another --port)"
    )


def test_serve_on_ipv6_says_its_address_in_brackets(db):
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
            port = probe.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    process = subprocess.Popen(
        [sys.executable, "-m", "perflab", "serve", "--db", str(db), "--host", "::1", "--port", str(port)],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert f" at http://[::1]:{port}/ " in line, line


def test_publish_writes_a_site_and_updates_its_own_but_nothing_else(db, tmp_path):
    out = tmp_path / "site"
    first = run_perflab("publish", "--out", out, "--db", db, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "site written to" in first.stderr
    for name in (
        "index.html",
        "regressions.html",
        "regressions.atom",
        "api/series.json",
        "api/regressions.json",
        "static/web.css",
        "static/flamegraph.js",
        "static/vendor/uplot/LICENSE",
        "static/vendor/htmx/LICENSE",
    ):
        assert (out / name).is_file(), name
    assert len(list((out / "series").glob("*.html"))) == 5 and len(list((out / "runs").glob("*.html"))) == 15
    assert len(list((out / "profiles").glob("diff-*.html"))) == 1
    assert run_perflab("publish", "--out", out, "--db", db, timeout=300).returncode == 0  # its own folder: updated
    foreign = tmp_path / "documents"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    refused = run_perflab("publish", "--out", foreign, "--db", db, timeout=60)
    assert refused.returncode == 2 and "not empty and not an earlier perflab site" in refused.stderr
    assert [p.name for p in foreign.iterdir()] == ["thesis.tex"]
