"""--metric results are kept: in --json files, in the results store, through export and import, and
in `perflab history --metric instructions` (real valgrind, real SQLite, the real command line)."""

import json

import pytest
from support.metrics_results_shared import _result

from perflab import metrics
from perflab.metrics import counters, instructions, memory
from perflab.results.model import RunResult


def _measured() -> metrics.Measured:
    return metrics.Measured(
        instructions=[
            instructions.InstructionCount("DOC", "a", 100, [1000.0, 1002.0, 1001.0]),
            instructions.InstructionCount("DOC", "b", 100, [], error="worker exited with code 1"),
        ],
        disagreements=[instructions.Disagreement("DOC", "c", 1.01, 3.0)],
        memory=[memory.MemoryUse("DOC", "a", 50, 17_000_000, 0, 3600, 0.25)],
        counters=[counters.CounterReading("DOC", "a", 400, {"context-switches": 0.001}, ["cycles"])],
        counters_unsupported="<not supported> for cycles",
    )


def test_metrics_survive_the_json_round_trip():
    measured = _measured()
    result = _result(metrics=measured.to_json())
    again = RunResult.from_json(json.loads(json.dumps(result.to_json())))
    assert metrics.stored(again) == measured
    counts = metrics.instruction_counts(again)
    assert list(counts) == [("DOC", "a")]  # the failed cell has no count
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
    data["power"] = {"watts": 3}
    assert metrics.Measured.from_json(data) == _measured()


def test_a_comparison_of_revisions_gives_each_revision_its_own_metrics():
    """Stored per revision (RunResult.per_side), each run keeps its side's rows under the contender's name."""
    from perflab.results.model import Cell

    sides = {
        rev: {"name": rev, "file": f"/w/{rev}/bench.py", "contender": "a", "python": "python3", "sys_path": []}
        for rev in ("v1", "v2")
    }
    measured = metrics.Measured(
        instructions=[
            instructions.InstructionCount("DOC", "v1", 10, [1000.0]),
            instructions.InstructionCount("DOC", "v2", 10, [1100.0]),
        ],
        disagreements=[instructions.Disagreement("DOC", "v2", 1.1, 3.0)],
        memory=[memory.MemoryUse("DOC", "v2", 5, 1, 2, 3, 4.0)],
    )
    result = _result(
        cells=[Cell("DOC", "v1"), Cell("DOC", "v2")],
        sides=sides,
        metrics=measured.to_json(),
        metadata={"sides": {rev: {"git": {"commit": rev, "branch": "HEAD"}} for rev in sides}},
    )
    v1, v2 = result.per_side("/repo/bench.py")
    assert metrics.instruction_counts(v1)["DOC", "a"].value == 1000.0
    assert metrics.instruction_counts(v2)["DOC", "a"].value == 1100.0
    assert metrics.stored(v1).memory == [] and metrics.stored(v2).memory[0].contender == "a"
    assert metrics.stored(v2).disagreements == []  # they compared the revisions with each other
