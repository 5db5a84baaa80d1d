"""An unpaired comparison of two stored runs (measured at different times) is after the fact: no
interleaving cancels what the machine's load did to either. Simulated with fixed seeds: identical
code measured on a busy machine, or under different loads, never reads "faster" or "slower" (the
A/A of the issue read "1.15x faster" in green); runs measured alike keep their verdicts; and the
page shows both runs' warnings."""

from __future__ import annotations

import numpy as np
import pytest

from perflab.analysis import estimates
from perflab.results.model import Cell, ProcessRun, RunResult
from perflab.results.quantities import FASTER, SLOWER
from perflab.results.store import Store, location
from perflab.results.verdicts import UNDECIDED
from perflab.results.warnings import LOAD_DIFFERENCE
from perflab.web import pages
from perflab.web.run_pair import compare_results, compare_runs
from perflab.web.site import Links

PAIRS = 200


def _run(rng: np.random.Generator, time: float, load: float, commit: str) -> RunResult:
    """One cell on a 2-CPU machine at load average ``load``: with other
    processes, each process runs slower by a random share of the load per CPU."""
    result = RunResult(
        "parse",
        "b.py",
        "base",
        {},
        {
            "machine": {"cpu_model": "cpu", "cpu_count": 2},
            "load_average_at_start": load,
            "load_average_at_end": load,
            "git": {"commit": commit * 40, "branch": "main", "dirty": False},
        },
        {},
    )
    cell = Cell("SMALL", "base")
    for r in range(int(rng.integers(4, 10))):
        slowed = 1 + load / 2 * rng.uniform(0, 0.3)
        cell.runs.append(ProcessRun(r + 1, 10, [], list(time * slowed * np.exp(rng.normal(0, 0.01, 10)))))
    cell.estimates = estimates.estimate_cell(cell.process_values())
    result.cells.append(cell)
    return result


def test_identical_code_under_unequal_load_reads_neither_faster_nor_slower():
    rng = np.random.default_rng(4101)
    withheld = 0
    for _ in range(PAIRS):
        loads = rng.choice([rng.uniform(0, 0.4), rng.uniform(1.5, 4), rng.uniform(8, 16)], size=2)
        if max(loads) < 2 and abs(loads[0] - loads[1]) < 2 * LOAD_DIFFERENCE:
            loads[1] = loads[0] + 2 * LOAD_DIFFERENCE  # under different load (on 2 CPUs), or busy
        time = 10.0 ** rng.uniform(-7, -3)
        a, b = _run(rng, time, float(loads[0]), "a"), _run(rng, time, float(loads[1]), "b")
        [row] = compare_results(a, b, paired=False)
        assert row.shown is not None and row.shown.verdict not in (FASTER, SLOWER), (loads, row.shown)
        withheld += row.shown.verdict == UNDECIDED and "no verdict" in row.shown.text
    assert withheld == PAIRS


def test_runs_measured_alike_keep_their_verdict():
    rng = np.random.default_rng(4102)
    said = []
    for _ in range(50):
        load = float(rng.uniform(0, 0.5))
        a, b = _run(rng, 1e-5, load, "a"), _run(rng, 1.5e-5, load + float(rng.uniform(0, 0.45)), "b")
        [row] = compare_results(a, b, paired=False)
        said.append(row.shown.verdict)  # type: ignore[union-attr]
    assert said.count(SLOWER) >= 45


def test_the_page_says_it_is_after_the_fact_and_shows_both_runs_warnings(tmp_path):
    rng = np.random.default_rng(4103)
    with Store.open(location(str(tmp_path / "store.db"))) as store:
        a, b = store.save(_run(rng, 1e-5, 9.0, "a")), store.save(_run(rng, 1e-5, 12.0, "b"))
        compared = compare_runs(store, a, b)
        page = pages.comparison(Links(), store, compared)
    assert "after-the-fact comparison" in page
    for side, load in (("A", "9.0"), ("B", "12.0")):
        assert f"Run {side} (" in page and f"busy machine: load average {load} on 2 CPUs" in page
    assert [w.kind for w in compared.warnings["A"]] == ["busy machine"]
    assert "no verdict: both runs were measured on a busy machine" in page


@pytest.mark.parametrize("loads", [(0.1, 0.2), (None, 3.0)])
def test_a_load_not_recorded_or_alike_withholds_nothing(loads):
    rng = np.random.default_rng(4104)
    a, b = _run(rng, 1e-5, 0.1, "a"), _run(rng, 2e-5, 0.1, "b")
    for run, load in zip((a, b), loads):
        run.metadata["load_average_at_start"] = run.metadata["load_average_at_end"] = load
    [row] = compare_results(a, b, paired=False)
    expected = SLOWER if loads[1] is not None and loads[1] < 2 else UNDECIDED
    assert row.shown.verdict == expected  # type: ignore[union-attr]
