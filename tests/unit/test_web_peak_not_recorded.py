"""The web view's peak chart over runs stored before the peak was kept: those runs are named "not
recorded" under the chart, never drawn as zero (a drop to zero would read as a change point)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

from starlette.testclient import TestClient
from support.store_results import synthetic_result

from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app

ALLOCATED = 4096.0


def memory_entry(with_peak: bool) -> dict:
    entry = {"case": "SMALL", "contender": "base", "loops": 10, "allocated_per_call": [ALLOCATED] * 3}
    if with_peak:  # a results file written before memray's peak was kept has no such key
        entry.update(peak_allocated=[ALLOCATED + 56] * 3, allocation_loops=100)
    return entry


def test_runs_without_the_peak_are_named_not_drawn(tmp_path):
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        for i, with_peak in enumerate((False, False, True)):
            result = synthetic_result(benchmark="parse", seed=i, commit=f"{i:02d}" + "ab" * 19)
            result.metrics = {"memory": [memory_entry(with_peak)]}
            store.save(result)
    client = TestClient(create_app(ServeSettings(path)))
    [row] = client.get("/api/series").json()["series"]
    data = client.get(f"/api/series/{row['id']}").json()
    labels = data["points"]["label"]
    peak, allocated = data["metrics"]["peak"], data["metrics"]["allocated"]
    assert peak["label"] == labels[2:] and peak["median"] == [ALLOCATED + 56]  # no zero for the runs before
    assert peak["not_recorded"] == labels[:2] and allocated["not_recorded"] == []
    html = client.get(f"/series/{row['id']}").text
    assert f"Not recorded for 2 runs (stored before perflab kept this figure): {labels[0]}, {labels[1]}." in html
    assert html.count("not-recorded") == 1  # under the peak chart only
