"""A password in a database URL (``--db`` or ``$PERFLAB_DB``) reaches no output, no stored field,
no exported file and no page (issue 42): every verb that prints or stores a store's location or the
command line, run for real against a PostgreSQL store (its trust authentication ignores the password,
so the URL connects while holding one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from support.cli import QUICK, run_perflab
from support.served_web import free_port

from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

PASSWORD = "Sup3rS3cretPW"
BENCH = """
import perflab

bench = perflab.Benchmark("summing")

@bench.case
def SMALL():
    return 10

@bench.contender
def builtin_sum(n):
    return sum(range(n))
"""


def _with_password(url: str) -> str:
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@")


def _files_under(directory: Path) -> list[Path]:
    return [path for path in directory.rglob("*") if path.is_file()]


def _serve_start_line(db_args: list[str], env: dict[str, str]) -> str:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "perflab", "serve", *db_args, "--port", str(port)],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "300", **env},
    )  # fmt: skip
    try:
        assert process.stderr is not None
        return process.stderr.readline()
    finally:
        process.terminate()
        process.wait(30)


@pytest.mark.parametrize("given", ["--db", "PERFLAB_DB"])
def test_a_password_in_the_database_url_is_in_no_output_file_or_page(given, postgres_url, tmp_path):
    url = _with_password(postgres_url)
    db_args, env = (["--db", url], {}) if given == "--db" else ([], {"PERFLAB_DB": url})
    (tmp_path / "bench.py").write_text(BENCH)
    said = []

    def perflab(*args: object) -> subprocess.CompletedProcess:
        done = run_perflab(*args, *db_args, cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        said.append(done.stdout + done.stderr)
        return done

    ran = perflab("run", "bench.py", "--json", "run.json", *QUICK)
    assert "stored as run 1 in postgresql://postgres:***@" in ran.stderr.replace("\n", "")
    assert json.loads((tmp_path / "run.json").read_text())["metadata"]["command"]
    (tmp_path / "again.json").write_text((tmp_path / "run.json").read_text().replace("builtin_sum", "other_sum"))
    perflab("import", "again.json")
    perflab("history", "summing")
    perflab("export", "exported")
    perflab("publish", "--out", "site")
    said.append(_serve_start_line(db_args, env))

    assert "postgres:***@" in said[-1] and said[-1].startswith("perflab serve: ")
    for text in said:
        assert PASSWORD not in text
    for path in _files_under(tmp_path):
        assert PASSWORD not in path.read_text(errors="replace"), path
    with Store.open(url) as store:
        stored = [store.result(run.id).metadata for run in store.runs()]
    assert len(stored) == 2 and not any(PASSWORD in json.dumps(metadata) for metadata in stored)
    api = TestClient(create_app(ServeSettings(url))).get("/api/runs/1")
    assert api.status_code == 200 and "summing" in api.text and PASSWORD not in api.text
