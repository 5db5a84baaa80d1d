"""The web comparison page (``/compare/A/B``) states one result: the ratio it shows is the ratio of
the medians it shows (or it says why not), and its verdict agrees with what the CI gate would say of
the same change. Through Starlette's TestClient, on a real SQLite store of runs built here."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

from support.comparison_page import comparison_rows
from support.store_results import synthetic_result

from perflab.analysis import estimates
from perflab.results.model import CaseComparison, Equivalence, ProcessRun, RunResult
from perflab.results.quantities import FASTER, Comparison, Interval
from perflab.results.store import Store
from perflab.web.app import ServeSettings, create_app

_TIME = re.compile(r"^([0-9.]+) (ns|us|ms|s) \[([0-9.]+) (ns|us|ms|s), ([0-9.]+) (ns|us|ms|s)\]$")
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_RATIO = re.compile(r"^([0-9.,]+)x (faster|slower) \[")


def _times(text: str) -> tuple[float, float, float]:
    found = _TIME.match(text)
    assert found, text
    n = found.groups()
    return tuple(float(n[i]) * _UNITS[n[i + 1]] for i in (0, 2, 4))  # type: ignore[return-value]


def _ratio(text: str) -> float:
    found = _RATIO.match(text)
    assert found, text
    factor = float(found.group(1).replace(",", ""))
    return factor if found.group(2) == "slower" else 1 / factor


def _run(time: float, seed: int, commit: str, processes: int = 12, loaded: int = 0) -> RunResult:
    """A run of one cell; ``loaded`` of its processes ran 1.7x slow (another job on the machine)."""
    result = synthetic_result(
        benchmark="parse", time=time, processes=processes, seed=seed, commit=commit * 40, noise=0.02
    )
    [cell] = result.cells
    for process in cell.runs[:loaded]:
        process.values = [value * 1.7 for value in process.values]
    cell.estimates = estimates.estimate_cell(cell.process_values())
    return result


def _page(tmp_path, before: RunResult, after: RunResult) -> str:
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        a, b = store.save(before), store.save(after)
    response = TestClient(create_app(ServeSettings(path))).get(f"/compare/{a}/{b}")
    assert response.status_code == 200
    return response.text


def _reads_slower_and_within_the_shown_times(page: str) -> None:
    [row] = comparison_rows(page).values()
    assert row.verdict == "slower" and row.verdict_class == "slower" and not row.struck and row.note == ""
    a, b = _times(row.a), _times(row.b)
    ratio = _ratio(row.ratio)
    # The ratio of what is shown: between B's low over A's high and B's high over A's low (the
    # shown numbers have 3 significant digits, hence the rounding allowance).
    assert b[1] / a[2] * 0.995 <= ratio <= b[2] / a[1] * 1.005, row
    assert ratio == pytest.approx(b[0] / a[0], rel=0.01)


def test_a_run_25_percent_slower_than_the_one_before_reads_slower(tmp_path):
    page = _page(tmp_path, _run(1e-5, seed=1, commit="a"), _run(1.25e-5, seed=2, commit="b"))
    _reads_slower_and_within_the_shown_times(page)
    assert "Unpaired" in page and "the ratio of the two medians shown" in page


def test_processes_slowed_by_load_do_not_hide_a_slowdown_the_medians_show(tmp_path):
    """As the issue's run 8 vs run 1: many of the old run's 48 processes (here 15) were 1.7x slow
    from load. Its median moved little, but the page showed medians 22% apart beside "no detectable
    difference" (a trimmed mean of per-process medians, and its interval), while check confirmed
    the +22%. With more than a third of the processes slow, the median itself is unsure, and its
    interval says so."""
    before = _run(2.79e-4, seed=3, commit="a", processes=48, loaded=15)
    after = _run(3.39e-4, seed=4, commit="b", processes=48)
    _reads_slower_and_within_the_shown_times(_page(tmp_path, before, after))


def test_a_contender_not_equivalent_in_either_run_is_struck_as_the_report_strikes_it(tmp_path):
    before, after = _run(1e-5, seed=5, commit="a"), _run(1.25e-5, seed=6, commit="b")
    second = _run(5e-6, seed=7, commit="b").cells[0]
    second.contender = "fast"
    after.cells.append(second)
    before.cells.append(_run(5e-6, seed=8, commit="a").cells[0])
    before.cells[-1].contender = "fast"
    after.equivalence.append(Equivalence("SMALL", "fast", "not equivalent", "differs at [0]"))
    rows = comparison_rows(_page(tmp_path, before, after))
    struck = rows["SMALL", "fast"]
    assert struck.struck and struck.verdict == "invalid (not equivalent)" and struck.verdict_class == "invalid"
    assert not rows["SMALL", "base"].struck and rows["SMALL", "base"].verdict == "slower"


def test_a_contender_repeat_only_in_either_run_is_struck_as_the_terminal_strikes_it(tmp_path):
    """A memo cache cautioned in run A only: its ratio across the runs does not count either (the
    terminal strikes its speedup in run A), and the verdict says in which run and why."""
    before, after = _run(1e-5, seed=12, commit="a"), _run(1.25e-5, seed=13, commit="b")
    for run, seed in ((before, 14), (after, 15)):
        run.cells.append(_run(1e-6, seed=seed, commit="a").cells[0])
        run.cells[-1].contender = "memo"
    caution = "repeat-only speed: 10.0x faster in the steady state but 1.12x slower on a first call"
    tenfold = Comparison(Interval(0.1, 0.09, 0.11), 1e-6, 12, 0.01)
    before.comparisons.append(CaseComparison("SMALL", "memo", "base", tenfold, 1e-6, FASTER, True, caution))
    rows = comparison_rows(_page(tmp_path, before, after))
    memo = rows["SMALL", "memo"]
    assert memo.struck and memo.verdict == f"repeat-only (in A: {caution})" and memo.verdict_class == "caution"
    assert not rows["SMALL", "base"].struck and rows["SMALL", "base"].verdict == "slower"


def test_a_ratio_outside_what_the_medians_allow_is_said_plainly(tmp_path):
    """Paired sides of one compare: the ratio is over interleaved rounds, not of the medians. B
    failed in the first 10 of 12 rounds; the machine was 1.5x slower in the last two, so B's median
    is 3x A's while the rounds both sides ran say 2x: the row says so, and why."""
    rng = np.random.default_rng(11)
    first, second = _run(1e-5, seed=9, commit="a"), _run(2e-5, seed=10, commit="b")
    for run, name, factor, rounds in ((first, "x", 1.0, range(12)), (second, "y", 2.0, range(10, 12))):
        run.metadata.update(started_at="2026-01-01T00:00:00+00:00", command="perflab compare", compared_as=name)
        [cell] = run.cells
        cell.runs = [
            ProcessRun(r, 100, [], list(1e-5 * factor * (1.5 if r >= 10 else 1.0) * np.exp(rng.normal(0, 0.01, 10))))
            for r in rounds
        ]
        cell.estimates = estimates.estimate_cell(cell.process_values())
    [row] = comparison_rows(_page(tmp_path, first, second)).values()
    assert _ratio(row.ratio) == pytest.approx(2, rel=0.05)
    assert re.match(r"not the ratio of the medians shown, which allow 3\.\d\dx slower \[", row.note), row.note
    assert "interleaved rounds" in row.note
