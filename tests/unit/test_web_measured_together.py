"""The web's comparison of two sides of one ``perflab compare --rev`` states that run's own ratio,
interval, adjusted p and verdict: the same rounds (a last round the budget cut short included),
estimator, level and false-discovery family (all the run's comparisons, across its cases and
sides), kept with the side's stored run, never recomputed from the stored values. Through a real
SQLite store and Starlette's TestClient."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from support.compared_sides import compared_sides
from support.comparison_page import comparison_rows

from perflab.render.html import report as report_html
from perflab.results.model import DECLARED_ONLY, RunResult
from perflab.results.quantities import FASTER, SLOWER
from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app

RESULTS = 12


def _mirrored(text: str) -> str:
    """The words of a ratio seen from the other side: the same factors, the other direction."""
    return re.sub(r"\b(faster|slower)\b", lambda m: SLOWER if m.group(1) == FASTER else FASTER, text)


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[TestClient, list[tuple[RunResult, dict[str, int]]]]:
    path = tmp_path_factory.mktemp("together") / "perflab.db"
    rng = np.random.default_rng(41)
    runs = []
    with Store.open(path) as store:
        for index in range(RESULTS):
            result = compared_sides(rng, index)
            ids = [store.save(side) for side in result.per_side("/repo/b.py")]
            runs.append((result, dict(zip(result.sides, ids))))
    return TestClient(create_app(ServeSettings(path))), runs


def test_the_page_and_the_api_state_the_runs_own_comparison(stored):
    client, runs = stored
    partial = 0
    for result, ids in runs:
        partial += sum(1 for cell in result.cells if cell.runs[-1].error)
        for side in ("y", "z"):
            rows = comparison_rows(client.get(f"/compare/{ids['x']}/{ids[side]}").text)
            api = client.get(f"/api/compare/{ids['x']}/{ids[side]}").json()
            assert api["source"] == "as measured" and api["pairing"].startswith("paired, as measured")
            cells = {(c["case"], c["contender"]): c for c in api["cells"]}
            for comparison in (c for c in result.comparisons if c.contender == side):
                shown, ratio = result.shown(comparison), comparison.comparison.ratio
                key, where = (comparison.case, "parse"), f"{result.benchmark} {side} {comparison.case}"
                assert rows[key].ratio == shown.ratio and rows[key].verdict == shown.text, where
                assert cells[key]["shown"] == shown.to_json(), where
                assert cells[key]["ratio_b_over_a"] == {"value": ratio.value, "low": ratio.low, "high": ratio.high}
    assert partial  # some cells' last round was cut short


def test_from_the_reference_side_the_runs_comparison_is_turned_over(stored):
    client, runs = stored
    for result, ids in runs:
        rows = comparison_rows(client.get(f"/compare/{ids['y']}/{ids['x']}").text)
        for comparison in (c for c in result.comparisons if c.contender == "y"):
            shown = result.shown(comparison)
            row = rows[comparison.case, "parse"]
            assert row.ratio == _mirrored(shown.ratio), result.benchmark
            assert row.verdict == _mirrored(shown.text), result.benchmark


def test_two_sides_the_run_did_not_compare_with_each_other_say_they_are_recomputed(stored):
    client, runs = stored
    _, ids = runs[0]
    api = client.get(f"/api/compare/{ids['y']}/{ids['z']}").json()
    assert api["paired"] is True and api["source"] == "recomputed"
    assert "recomputed" in client.get(f"/compare/{ids['y']}/{ids['z']}").text


def test_a_sides_run_page_gives_the_equivalence_label_the_terminal_gave(stored):
    """The web run page said "No equivalence checks recorded" where the terminal said "equal on
    declared cases" (revisions are not fuzzed): the side's page gives the run's label."""
    client, runs = stored
    result, ids = runs[0]
    assert result.equivalence_label("case0", "y") == DECLARED_ONLY
    page = client.get(f"/runs/{ids['y']}").text
    equivalence = re.search(r"<table class='equivalence'>.*?</table>", page, re.S)
    assert equivalence is not None and "No equivalence checks recorded" not in page
    assert f"<td class=''>{DECLARED_ONLY}</td>" in equivalence.group(0) and "against side x" in equivalence.group(0)
    report = report_html.render([report_html.Section(result)], "t")
    table = re.search(r"<table class='equivalence'>.*?</table>", report, re.S)
    assert table is not None and f"<td class=''>{DECLARED_ONLY}</td>" in table.group(0)
