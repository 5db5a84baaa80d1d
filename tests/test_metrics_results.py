"""--metric results are kept: in --json files, in the results store, through export and import, and
in `perflab history --metric instructions` (real valgrind, real SQLite, the real command line)."""

import json
import shutil

import pytest
from support.cli import QUICK, load_json, run_perflab

from perflab import metrics
from perflab.metrics import counters, instructions, memory
from perflab.results.model import RunResult

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

TWO_CONTENDERS = (
    ONE_CELL_BENCH
    + """
@bench.contender
def dumps_sorted(doc):
    return json.dumps(doc, sort_keys=True)
"""
)

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


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


def _result(**fields) -> RunResult:
    return RunResult(
        **{
            "benchmark": "counted",
            "file": "/x/bench.py",
            "reference": "a",
            "settings": {},
            "metadata": {},
            "work": {},
            **fields,
        }
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
    data["cache"] = {"misses": 3}
    assert metrics.Measured.from_json(data) == _measured()


@needs_valgrind
def test_instruction_counts_reach_json_store_export_and_import(bench_file, tmp_path):
    """One cell, counted in 3 valgrind processes: the same counts in --json, the store, an exported
    file and a second database that imported it."""
    db, json_file = tmp_path / "runs.db", tmp_path / "out.json"
    done = run_perflab(
        "run",
        bench_file(ONE_CELL_BENCH),
        "--metric",
        "instructions",
        "--json",
        json_file,
        "--db",
        db,
        *QUICK,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    written = RunResult.from_json(load_json(json_file))
    counts = metrics.instruction_counts(written)
    estimate = counts["DOC", "dumps"]
    assert list(counts) == [("DOC", "dumps")]
    assert len(estimate.processes) == instructions.REPEATS and estimate.value > 1000
    assert estimate.spread < 0.001

    from perflab.results.store import Store

    with Store.open(db, create=False) as store:
        stored = store.result(store.runs("counted")[-1].id)
    assert metrics.instruction_counts(stored) == counts

    assert run_perflab("export", tmp_path / "exported", "--db", db).returncode == 0
    [exported] = (tmp_path / "exported").glob("counted-*.json")
    assert metrics.instruction_counts(RunResult.from_json(load_json(exported))) == counts
    imported_db = tmp_path / "imported.db"
    assert run_perflab("import", exported, "--db", imported_db).returncode == 0
    with Store.open(imported_db, create=False) as store:
        assert metrics.instruction_counts(store.result(store.runs("counted")[-1].id)) == counts

    shown = run_perflab("history", "counted", "--metric", "instructions", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert f"{estimate.value:,.0f} ± 0.00%" in shown.stdout and "instructions/call" in shown.stdout


def test_compare_keeps_each_sides_metrics_in_its_stored_run(bench_file, tmp_path):
    """compare --json holds both contenders' memory; a comparison of revisions is stored as one run
    per revision, each with its own rows."""
    path = bench_file(TWO_CONTENDERS)
    done = run_perflab(
        "compare",
        path,
        "--metric",
        "memory",
        "--no-fuzz",
        "--json",
        tmp_path / "c.json",
        "--db",
        tmp_path / "c.db",
        *QUICK,
    )
    assert done.returncode == 0, done.stderr
    kept = metrics.stored(RunResult.from_json(load_json(tmp_path / "c.json")))
    assert sorted(use.contender for use in kept.memory) == ["dumps", "dumps_sorted"]
    assert all(use.peak_rss > 1_000_000 for use in kept.memory)


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


def test_history_of_instruction_counts_finds_a_half_percent_step(tmp_path):
    """Ten stored runs whose counts step up by 0.5% (a step the 3% floor for times would hide);
    runs without counts are left out of the series."""
    from perflab.results.store import Store

    db = tmp_path / "history.db"
    with Store.open(db) as store:
        store.save(_result())  # timed only: not in the series
        for index in range(10):
            value = 50_000.0 if index < 5 else 50_250.0
            count = instructions.InstructionCount("DOC", "a", 100, [value, value, value])
            measured = metrics.Measured(instructions=[count]).to_json()
            # ten distinct runs (equal results would be one run stored twice: the store refuses that)
            store.save(_result(metrics=measured, metadata={"started_at": f"2026-01-01T00:00:{index:02d}+00:00"}))
    done = run_perflab("history", "counted", "--metric", "instructions", "--db", db)
    assert done.returncode == 0, done.stderr
    output = " ".join(done.stdout.split())
    assert "10 run(s)" in output and "50,250 ± 0.00%" in output
    assert "▲ more instructions +0.50%" in output
    assert "change point: +0.50% [95% CI" in output and "after run 6, at or before run 7" in output


def test_history_without_counts_says_how_to_get_them(tmp_path):
    from perflab.results.store import Store

    db = tmp_path / "history.db"
    with Store.open(db) as store:
        store.save(_result())
    done = run_perflab("history", "counted", "--metric", "instructions", "--db", db)
    assert done.returncode == 2
    assert "no instruction counts of counted" in done.stderr and "perflab run --metric instructions" in done.stderr
