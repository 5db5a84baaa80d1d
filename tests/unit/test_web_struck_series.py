"""The dashboard marks a contender whose speed does not count (not equivalent to the reference, or
fast on repeated calls only) apart from ordinary series, as the report strikes its ratio; stores
of schema 4 learn which cells those were when they are upgraded."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

from support.store_results import downgrade, synthetic_result

from perflab.results.model import Equivalence, RunResult
from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app


def _run(index: int, fast_equivalent: bool) -> RunResult:
    run = synthetic_result(seed=index, commit=f"{index}" * 40)
    fast = synthetic_result(time=5e-6, seed=10 + index, contender="fast").cells[0]
    run.cells.append(fast)
    status = "equivalent" if fast_equivalent else "not equivalent"
    run.equivalence.append(Equivalence("SMALL", "fast", status, None if fast_equivalent else "differs at [0]"))
    return run


@pytest.fixture
def store(tmp_path):
    """Three runs; the contender 'fast' is not equivalent in the second and the third."""
    path = tmp_path / "perflab.db"
    with Store.open(path) as opened:
        for index in range(3):
            opened.save(_run(index, fast_equivalent=index == 0))
    return path


def _rows(client: TestClient) -> dict[str, dict]:
    return {row["contender"]: row for row in client.get("/api/series").json()["series"]}


def test_the_overview_and_the_series_page_mark_a_not_equivalent_contender_apart(store):
    client = TestClient(create_app(ServeSettings(store)))
    rows = _rows(client)
    assert rows["fast"]["latest"]["struck"] == "invalid" and rows["base"]["latest"]["struck"] is None
    overview = client.get("/").text
    [marked] = [row for row in overview.split("<tr ") if 'data-struck="invalid"' in row]
    assert "struck-series" in marked and "<td>fast" in marked
    assert 'class="invalid">invalid in the latest run: its speed does not count' in marked
    data = client.get(f"/api/series/{rows['fast']['id']}").json()
    assert data["points"]["struck"] == [None, "invalid", "invalid"]
    page = client.get(f"/series/{rows['fast']['id']}").text
    assert "fast is struck out in 2 of these runs" in page
    assert "struck out" not in client.get(f"/series/{rows['base']['id']}").text


def test_a_store_of_schema_4_learns_which_cells_are_struck_when_upgraded(store):
    downgrade(store, 4)
    with Store.open(store, create=False):  # as perflab serve opens it before serving: upgraded
        pass
    assert _rows(TestClient(create_app(ServeSettings(store))))["fast"]["latest"]["struck"] == "invalid"
