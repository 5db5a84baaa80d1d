"""`perflab serve` over a PostgreSQL store: the same pages and marks as over a SQLite file."""

from __future__ import annotations

import os
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

from support.cli import run_perflab
from support.web_store import OTHER_MACHINE, RUNS, build_store

from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app

TOKEN = "t" * 32


def test_the_web_view_reads_and_marks_a_postgres_store(postgres_url):
    build_store(postgres_url)
    client = TestClient(create_app(ServeSettings(postgres_url, token=TOKEN)))
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    rows = client.get("/api/series", headers=bearer).json()["series"]
    assert len(rows) == 5 and sum(1 for r in rows if r["machine"].startswith(OTHER_MACHINE["cpu_model"][:9])) == 1
    [row] = [
        r for r in rows if r["case"] == "SMALL" and r["contender"] == "base" and not r["machine"].startswith("Other")
    ]
    assert len(client.get(f"/api/series/{row['id']}", headers=bearer).json()["points"]["median"]) == RUNS
    change = client.get("/api/regressions", headers=bearer).json()["changes"][0]
    mark = {"series": change["series"], "after": change["after"], "status": "ignored", "note": "noise"}
    assert client.post("/api/marks", json=mark, headers=bearer).status_code in (200, 201, 303)
    with Store.open(postgres_url) as store:
        assert [(m.status, m.note) for m in store.change_marks()] == [("ignored", "noise")]


def test_serve_refuses_an_empty_postgres_database_in_one_line(postgres_url):
    served = run_perflab("serve", "--db", postgres_url, env={**os.environ, "COLUMNS": "300"})
    assert served.returncode == 2 and "no perflab results here yet" in served.stderr
    assert len(served.stderr.strip().splitlines()) == 1
