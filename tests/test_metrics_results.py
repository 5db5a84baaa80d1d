"""--metric results are kept: in --json files, in the results store, through export and import, and
in `perflab history --metric instructions` (real valgrind, real SQLite, the real command line)."""

import json
import shutil

import pytest

from conftest import QUICK, load_json, run_perflab
from perflab import metrics
from perflab.metrics import counters, instructions, memory
from perflab.results import RunResult

ONE_CELL_BENCH = """
import json
import perflab
bench = perflab.Benchmark("counted", compare="exact")

@bench.case()
def DOC():
    return {"numbers": list(range(40))}

@bench.contender
def dumps(doc):
    return json.dumps(doc)
"""

TWO_CONTENDERS = ONE_CELL_BENCH + """
@bench.contender
def dumps_sorted(doc):
    return json.dumps(doc, sort_keys=True)
"""

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


def _measured() -> metrics.Measured:
    return metrics.Measured(
        instructions=[instructions.InstructionCount("DOC", "a", 100, [1000.0, 1002.0, 1001.0]),
                      instructions.InstructionCount("DOC", "b", 100, [], error="worker exited with code 1")],
        disagreements=[instructions.Disagreement("DOC", "c", 1.01, 3.0)],
        memory=[memory.MemoryUse("DOC", "a", 50, 17_000_000, 0, 3600, 0.25)],
        counters=[counters.CounterReading("DOC", "a", 400, {"context-switches": 0.001}, ["cycles"])],
        counters_unsupported="<not supported> for cycles")


def _result(**fields) -> RunResult:
    return RunResult(benchmark="counted", file="/x/bench.py", reference="a", settings={}, metadata={}, work={},
                     **fields)


def test_metrics_survive_the_json_round_trip():
    measured = _measured()
    result = _result(metrics=measured.to_json())
    again = RunResult.from_json(json.loads(json.dumps(result.to_json())))
    assert metrics.stored(again) == measured
    counts = metrics.instruction_counts(again)
    assert list(counts) == [("DOC", "a")]          # the failed cell has no count
    estimate = counts["DOC", "a"]
    assert (estimate.value, estimate.low, estimate.high) == (1001.0, 1000.0, 1002.0)
    assert estimate.processes == (1000.0, 1002.0, 1001.0) and estimate.loops == 100
    assert estimate.spread == pytest.approx(2 / 1001)


def test_results_written_before_metrics_were_kept_still_load():
    data = _result().to_json()
    del data["metrics"]
    old = RunResult.from_json(data)
    assert old.metrics is None and metrics.stored(old) is None and metrics.instruction_counts(old) == {}


def test_keys_added_by_a_later_perflab_are_ignored():
    data = _measured().to_json()
    data["instructions"][0]["median"] = 1001.0
    data["cache"] = {"misses": 3}
    assert metrics.Measured.from_json(data) == _measured()
