"""Every route of the web view answers 4xx, never 5xx, to hostile ids and bodies (issue 42): the
routes are walked from the application itself (a route added later is walked too), on a real
SQLite store that also holds runs with impossible times, written as a store of an older perflab
could hold them (the store now refuses them)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

from support.store_results import synthetic_result
from support.web_hostile import HOSTILE_BODIES, HOSTILE_IDS, HOSTILE_NAMES, IMPOSSIBLE, hostile_paths, hostile_store

from perflab.results.store import Store, StoreError
from perflab.web.app import ServeSettings, create_app

TOKEN = "t" * 32


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "perflab.db"
    return path, hostile_store(path)


def test_the_store_refuses_a_run_holding_an_impossible_time(tmp_path):
    for value in IMPOSSIBLE:
        result = synthetic_result(seed=1)
        result.cells[0].runs[2].values[3] = value
        with Store.open(tmp_path / "s.db") as store, pytest.raises(StoreError, match=r"runs\[2\]\.values\[3\] is"):
            store.save(result)


def test_every_route_answers_hostile_ids_and_stored_impossible_times_without_a_server_error(hostile):
    path, bad_ids = hostile
    app = create_app(ServeSettings(path, token=TOKEN))
    client = TestClient(app, raise_server_exceptions=False, headers={"Authorization": f"Bearer {TOKEN}"})
    series = [row["id"] for row in client.get("/api/series").json()["series"]]
    ids = [*HOSTILE_IDS, *map(str, bad_ids), "1"]
    stored = [*map(str, bad_ids), "1"]
    urls = hostile_paths(app, ids, [*HOSTILE_NAMES, *series[:2]], stored)
    answers = {url: client.get(url).status_code for url in urls}
    assert len(answers) > 150
    assert {url: code for url, code in answers.items() if code >= 500} == {}
    for run_id in bad_ids:  # the run is named, and why it cannot be shown
        page = client.get(f"/runs/{run_id}")
        assert page.status_code == 422 and "cannot be used" in page.text
    assert client.get("/").status_code == 200 and client.get("/regressions.atom").status_code == 200


@pytest.mark.parametrize(("body", "kind"), HOSTILE_BODIES)
def test_a_hostile_mark_body_is_a_client_error(hostile, body, kind):
    client = TestClient(create_app(ServeSettings(hostile[0], token=TOKEN)), raise_server_exceptions=False)
    answer = client.post(
        "/api/marks", content=body.encode("latin-1"), headers={"Authorization": f"Bearer {TOKEN}", "content-type": kind}
    )
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:200])
