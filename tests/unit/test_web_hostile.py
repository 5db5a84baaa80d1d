"""Every route of the web view answers 4xx, never 5xx, to hostile ids and bodies (issue 42): the
routes are walked from the application itself (a route added later is walked too), on a real
SQLite store that also holds runs with impossible times, written as a store of an older perflab
could hold them (the store now refuses them)."""

from __future__ import annotations

import itertools
import json
import math
import re
import sqlite3
import warnings

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.routing import Route
    from starlette.testclient import TestClient

from support.store_results import synthetic_result
from support.web_store import build_store

from perflab.results.store import Store, StoreError
from perflab.web.app import ServeSettings, create_app

TOKEN = "t" * 32
IMPOSSIBLE = [math.inf, 0.0, -1e-5, 1e308, math.nan]
HOSTILE_IDS = ["99999999999999999999999", "9223372036854775808", "0", "-1", "1e3", "%00", "x" * 3000]
HOSTILE_NAMES = ["%00", "..%2F..%2Fetc%2Fpasswd", "%3Cscript%3E", "x" * 3000, "%F0%9F%92%A5", "%E2%80%AE"]


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    """The web view's test store, with one more run per impossible time, overwritten in SQLite."""
    path = tmp_path_factory.mktemp("hostile") / "perflab.db"
    build_store(path)
    with Store.open(path) as store:
        bad_ids = [store.save(synthetic_result(benchmark="parse", seed=100 + i), uid=f"bad{i}") for i in range(5)]
    with sqlite3.connect(path) as raw:
        for run_id, value in zip(bad_ids, IMPOSSIBLE):
            if not math.isnan(value):  # SQLite keeps a NaN as NULL, which its NOT NULL refuses
                raw.execute(
                    "UPDATE measurements SET median = ?, low = ?, high = ? WHERE run_id = ?", [value] * 3 + [run_id]
                )
            data = json.loads(raw.execute("SELECT result FROM runs WHERE id = ?", [run_id]).fetchone()[0])
            for cell in data["cells"]:
                for run in cell["runs"]:
                    run["values"] = [value] * len(run["values"])
                cell["estimates"]["median"] = {"value": value, "low": value, "high": value}
            raw.execute("UPDATE runs SET result = ? WHERE id = ?", [json.dumps(data), run_id])
    return path, bad_ids


def test_the_store_refuses_a_run_holding_an_impossible_time(tmp_path):
    for value in IMPOSSIBLE:
        result = synthetic_result(seed=1)
        result.cells[0].runs[2].values[3] = value
        with Store.open(tmp_path / "s.db") as store, pytest.raises(StoreError, match=r"runs\[2\]\.values\[3\] is"):
            store.save(result)


def _paths(app, ids: list[str], names: list[str], stored: list[str]) -> list[str]:
    """Every GET route with each hostile value in each parameter (the others valid), and every pair
    of the ``stored`` runs' ids where a route takes two."""
    paths = []
    for route in app.routes:
        if not isinstance(route, Route) or "GET" not in (route.methods or ()):
            continue
        params = list(route.param_convertors)
        valid = {name: "1" if name in ("run_id", "a", "b") else "SMALL" for name in params}
        fillings = [{**valid, name: value} for name in params for value in (ids if valid[name] == "1" else names)]
        if {"a", "b"} <= set(params):
            fillings += [{**valid, "a": a, "b": b} for a, b in itertools.product(stored, repeat=2)]
        for filling in fillings or [{}]:
            paths.append(re.sub(r"\{(\w+)(:\w+)?\}", lambda match, given=filling: given[match[1]], route.path))
    return paths


def test_every_route_answers_hostile_ids_and_stored_impossible_times_without_a_server_error(hostile_store):
    path, bad_ids = hostile_store
    app = create_app(ServeSettings(path, token=TOKEN))
    client = TestClient(app, raise_server_exceptions=False, headers={"Authorization": f"Bearer {TOKEN}"})
    series = [row["id"] for row in client.get("/api/series").json()["series"]]
    ids = [*HOSTILE_IDS, *map(str, bad_ids), "1"]
    stored = [*map(str, bad_ids), "1"]
    urls = _paths(app, ids, [*HOSTILE_NAMES, *series[:2]], stored)
    answers = {url: client.get(url).status_code for url in urls}
    assert len(answers) > 150
    assert {url: code for url, code in answers.items() if code >= 500} == {}
    for run_id in bad_ids:  # the run is named, and why it cannot be shown
        page = client.get(f"/runs/{run_id}")
        assert page.status_code == 422 and "cannot be used" in page.text
    assert client.get("/").status_code == 200 and client.get("/regressions.atom").status_code == 200


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("[" * 1500 + "]" * 1500, "application/json"),  # a RecursionError in the JSON parser
        ('{"series": ' * 700 + "1" + "}" * 700, "application/json"),
        ("[1, 2]", "application/json"),
        ('{"series": null, "after": [], "status": {}, "note": 1e999}', "application/json"),
        ("\xff\xfe", "application/x-www-form-urlencoded"),
        ("series=%ZZ&after=%00", "application/x-www-form-urlencoded"),
        ("x" * 100_000, "application/json"),
        ("--b\r\n\r\n", "multipart/form-data; boundary=b"),
    ],
)
def test_a_hostile_mark_body_is_a_client_error(hostile_store, body, kind):
    client = TestClient(create_app(ServeSettings(hostile_store[0], token=TOKEN)), raise_server_exceptions=False)
    answer = client.post(
        "/api/marks", content=body.encode("latin-1"), headers={"Authorization": f"Bearer {TOKEN}", "content-type": kind}
    )
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:200])
