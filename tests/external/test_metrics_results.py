"""--metric results are kept: in --json files, in the results store, through export and import, and
in `perflab history --metric instructions` (real valgrind, real SQLite, the real command line)."""

import shutil

import pytest
from support.cli import COUNTED, QUICK, load_json, run_perflab
from support.metrics_results_shared import ONE_CELL_BENCH

from perflab import metrics
from perflab.results.model import RunResult

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


@needs_valgrind
def test_instruction_counts_reach_json_store_export_and_import(bench_file, tmp_path):
    """One cell, counted in 2 valgrind processes (COUNTED): the same counts in --json, the store, an
    exported file and a second database that imported it."""
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
        *COUNTED,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    written = RunResult.from_json(load_json(json_file))
    counts = metrics.instruction_counts(written)
    estimate = counts["DOC", "dumps"]
    assert list(counts) == [("DOC", "dumps")]
    assert len(estimate.processes) == 2 and estimate.value > 1000
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
    # The stored median and the half-range of the two processes (counts may differ by a few
    # instructions between processes: "± 0.00%" failed when they did).
    half = max(estimate.high - estimate.value, estimate.value - estimate.low) / estimate.value
    assert f"{estimate.value:,.0f} ± {half:.2%}" in shown.stdout and "instructions/call" in shown.stdout
