"""The web view's routes through Starlette's TestClient, on a real SQLite store: pages, JSON
endpoints, marks, the token, security headers, escaping of hostile names, static files."""

from __future__ import annotations

import sqlite3
import threading
import warnings

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

from support.store_results import synthetic_result
from support.web_routes_shared import client, store_path  # noqa: F401 - fixtures are found by name
from support.web_store import (
    build_store,
)

from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app


def test_pages_stay_whole_while_another_process_writes(tmp_path):
    path = tmp_path / "perflab.db"
    build_store(path)
    client = TestClient(create_app(ServeSettings(path)))
    before = client.get("/api/series").json()["series"]
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM measurements")  # uncommitted: no reader may see it
    assert client.get("/api/series").json()["series"] == before
    assert client.get("/").status_code == 200
    writer.execute("ROLLBACK")
    writer.close()
    errors, stop = [], threading.Event()

    def save_runs():
        with Store.open(path) as store:
            for i in range(15):
                store.save(synthetic_result(benchmark="parse", cases=("SMALL",), commit=f"{i:02d}" + "ef" * 19, seed=i))
        stop.set()

    thread = threading.Thread(target=save_runs)
    thread.start()
    while not stop.is_set():
        for page in ("/", "/api/series", "/regressions"):
            response = client.get(page)
            if response.status_code != 200:
                errors.append((page, response.status_code))
    thread.join()
    assert errors == []
    assert sum(r["runs"] for r in client.get("/api/series").json()["series"]) == sum(r["runs"] for r in before) + 15


def test_runs_stored_without_raw_values_compare_by_their_medians_without_an_interval(tmp_path):
    from perflab.analysis.estimates import CellEstimates, Interval
    from perflab.results.model import Cell, RunResult

    path = tmp_path / "perflab.db"
    ids = []
    with Store.open(path) as store:
        for value in (1e-5, 1.2e-5):
            result = RunResult(benchmark="imported", file="x.py", reference="base", settings={}, work={}, metadata={})
            cell = Cell("SMALL", "base")
            cell.estimates = CellEstimates(
                Interval(value, value * 0.99, value * 1.01), Interval(value, value, value), 6, 60, 0, 0
            )
            result.cells.append(cell)
            ids.append(store.save(result))
    [cell] = TestClient(create_app(ServeSettings(path))).get(f"/api/compare/{ids[0]}/{ids[1]}").json()["cells"]
    assert cell["ratio_b_over_a"] == {"value": pytest.approx(1.2), "low": None, "high": None}
    assert cell["verdict"].startswith("undecided")
