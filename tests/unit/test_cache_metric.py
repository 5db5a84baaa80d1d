"""--metric cache, in process: the counters and the cycle estimate's cost model, readings kept in
results, and the tables every output lays out (escaped where they land)."""

import json

import pytest
from support.metrics_results_shared import _result

from perflab import metrics
from perflab.analysis import cache_model
from perflab.metrics.cache import CacheReading
from perflab.render import cache_tables, markdown
from perflab.render.html import report
from perflab.results.model import RunResult

EVENTS = {"Ir": 1000.0, "I1mr": 1.0, "D1mr": 2.0, "D1mw": 3.0, "ILmr": 0.5, "DLmr": 1.0, "DLmw": 0.5}
EVENTS |= {"Bc": 100.0, "Bcm": 4.0, "Bi": 10.0, "Bim": 1.0, "Dr": 300.0, "Dw": 200.0}


def test_the_cycle_estimate_is_the_stated_cost_model():
    # 1 per instruction, +10 per L1 miss (6), +100 per LL miss (2), +10 per misprediction (5)
    assert cache_model.cycle_estimate(EVENTS) == 1000 + 10 * 6 + 100 * 2 + 10 * 5
    named = cache_model.counters(EVENTS)
    assert named["branches"] == 110 and named["branch mispredictions"] == 5
    assert named["D1 write misses"] == 3 and named["LL instruction misses"] == 0.5
    assert list(named) == list(cache_model.NAMES)


def test_summaries_are_medians_with_the_spread_over_processes():
    processes = [EVENTS, {**EVENTS, "Ir": 1002.0}, {**EVENTS, "Ir": 1001.0}]
    summary = cache_model.summarize(processes)
    assert summary["instructions"] == (1001.0, pytest.approx(2 / 1001))
    assert summary["D1 read misses"] == (2.0, 0.0)
    assert cache_model.summarize([{**EVENTS, "DLmw": 0.0}])["LL data write misses"] == (0.0, 0.0)
    # a fraction of a miss over-subtracted by the 0-call region: the spread is still a size
    negative = cache_model.summarize([{**EVENTS, "DLmr": -0.1}, {**EVENTS, "DLmr": -0.2}])
    assert negative["LL data read misses"] == (pytest.approx(-0.15), pytest.approx(0.1 / 0.15))


def _reading(contender: str, scale: float, function: str = "PyDict_SetItem") -> CacheReading:
    events = {event: value * scale for event, value in EVENTS.items()}
    return CacheReading("DOC", contender, 100, [events, events], {function: events}, ["D1 cache: 49152 B"])


SETTINGS = {"precision": 0.01, "alpha": 0.01, "min_effect": 0.01}
METADATA = {"machine": {"cpu_model": "cpu"}}


def _measured() -> metrics.Measured:
    failed = CacheReading("DOC", "c", 100, error="worker exited with code 1")
    return metrics.Measured(cache=[_reading("a", 1.0), _reading("b|<i>x</i>", 2.0, "f<b>"), failed])


def test_cache_readings_survive_the_json_round_trip():
    result = _result(metrics=_measured().to_json())
    again = RunResult.from_json(json.loads(json.dumps(result.to_json())))
    assert metrics.stored(again) == _measured()
    assert metrics.stored(again).errors == ["DOC/c: worker exited with code 1"]


def test_the_table_gives_each_counter_per_side_and_its_ratio_to_the_reference():
    (table,) = cache_tables.case_tables(_result(), _measured())
    assert table.header == ["counter", "a", "b|<i>x</i>", "b|<i>x</i> / a"]
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["instructions"] == ["1,000", "2,000", "2.00x"]
    assert rows["cycles (estimate)"] == ["1,310", "2,620", "2.00x"]
    assert rows["calls x processes"][:2] == ["100 x 2", "100 x 2"]
    assert "wall time" in rows  # beside the counters, the timing verdict of the same comparison
    assert [f.contender for f in table.functions] == ["a", "b|<i>x</i>"]
    assert table.functions[1].rows[0][:4] == ["f<b>", "2,000", "2", "10"]  # D1 misses = read + write


def test_markdown_and_html_show_the_tables_with_user_strings_escaped():
    result = _result(metrics=_measured().to_json(), settings=SETTINGS, metadata=METADATA)
    text = markdown.render_result(result)
    assert cache_tables.TITLE in text and "| instructions | 1,000 | 2,000 | 2.00x |" in text
    assert "b\\|&lt;i&gt;x&lt;/i&gt;" in text and "<i>" not in text
    page = report.render([report.Section(result)], "t")
    assert "cycles (estimate)" in page and "f&lt;b&gt;" in page and "f<b>" not in page


def test_runs_without_cache_readings_show_no_cache_table():
    assert cache_tables.stored_tables(_result()) == []
    assert cache_tables.TITLE not in markdown.render_result(_result(settings=SETTINGS, metadata=METADATA))
