"""One number, one meaning, past a single output: the surfaces that summarize or look back state
what the run measured. Over 1,000 random ``perflab compare --rev`` results (fixed seed; 2 or 3
sides, 1 to 6 rounds, a last round the budget cut short in most cells, a third measured on a busy
machine), stored one run per side in a real SQLite store:

- the web's paired comparison page and ``/api/compare`` of a side and its reference state the
  run's own ratio, interval, adjusted p and verdict (``RunResult.shown``), from either side;
- the web's unpaired comparison of the same side in two results (different times) is the ratio of
  the medians it shows, never "faster"/"slower" when either run was busy or their loads differ,
  and shows both runs' warnings; the run page of a stored side shows its warnings;
- ``check``'s outputs (Markdown, JSON) of the result show its medians and the run's own ratio,
  name both estimators wherever the medians give another ratio, and say the run's warnings;
- ``history`` shows each stored run's median and interval;
- the pytest plugin's summary says the run warnings of the runs it stored.
"""

from __future__ import annotations

import html
import io
import re

import numpy as np
import pytest
from rich.console import Console
from support.compared_sides import compared_sides
from support.comparison_page import comparison_rows

from perflab.analysis import changepoints, gate
from perflab.pytest_plugin.report import warning_lines
from perflab.render import markdown
from perflab.render.terminal import history as history_view
from perflab.results import history
from perflab.results.model import RunResult
from perflab.results.quantities import FASTER, SLOWER
from perflab.results.store import Store, location
from perflab.results.warnings import busy, load_difference, run_warnings
from perflab.units import format_ratio, format_ratio_estimate, format_time, format_times
from perflab.web import pages
from perflab.web.run_pair import AS_MEASURED, UNPAIRED, compare_runs
from perflab.web.site import Links, comparison_payload

RESULTS = 1000
SEED = 20261201


def _mirrored(text: str) -> str:
    return re.sub(r"\b(faster|slower)\b", lambda m: SLOWER if m.group(1) == FASTER else FASTER, text)


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[str, list[tuple[RunResult, dict[str, int]]]]:
    """The random results, each as one stored run per side; results 2k and 2k+1 are of one benchmark."""
    path = str(tmp_path_factory.mktemp("surfaces") / "store.db")
    rng = np.random.default_rng(SEED)
    runs = []
    with Store.open(location(path)) as store:
        for index in range(RESULTS):
            sides = ("x", "y", "z") if rng.random() < 0.3 else ("x", "y")
            load = float(rng.choice([rng.uniform(0, 0.4), rng.uniform(0.5, 1.5), rng.uniform(2, 12)]))
            result = compared_sides(
                rng, index, sides, cases=("case0",), rounds=int(rng.integers(1, 7)), load=load, benchmark=index // 2
            )
            ids = [store.save(side) for side in result.per_side("/repo/b.py")]
            runs.append((result, dict(zip(result.sides, ids))))
    return path, runs


def test_the_drawn_results_hold_what_the_surfaces_must_get_right(stored):
    _, runs = stored
    results = [result for result, _ in runs]
    assert len(results) >= 1000
    assert sum(1 for r in results for c in r.cells if c.runs[-1].error) > 300  # partial last rounds
    assert 200 < sum(busy(r) for r in results) < 600
    verdicts = {r.shown(c).verdict for r in results for c in r.comparisons}
    assert {FASTER, SLOWER, "no detectable difference", "undecided"} <= verdicts


def test_the_webs_paired_comparison_states_the_runs_own(stored):
    path, runs = stored
    with Store.open(location(path)) as store:
        for result, ids in runs:
            for comparison in result.comparisons:
                side, shown = comparison.contender, result.shown(comparison)
                for a, b, turn in ((ids["x"], ids[side], str), (ids[side], ids["x"], _mirrored)):
                    compared = compare_runs(store, a, b)
                    assert compared.source == AS_MEASURED
                    [row] = comparison_rows(pages.comparison(Links(), store, compared)).values()
                    where = f"{result.benchmark} runs {a}, {b}"
                    assert row.ratio == turn(shown.ratio) and row.verdict == turn(shown.text), where
                    [cell] = comparison_payload(compared)["cells"]
                    assert cell["shown"]["ratio"] == turn(shown.ratio) and cell["shown"]["detail"] == shown.detail


def test_the_webs_unpaired_comparison_withholds_under_unequal_load_and_shows_both_warnings(stored):
    path, runs = stored
    withheld = verdicts = 0
    with Store.open(location(path)) as store:
        for (_, first_ids), (_, second_ids) in zip(runs[::2], runs[1::2]):
            a, b = first_ids["y"], second_ids["y"]
            compared = compare_runs(store, a, b)
            assert compared.source == UNPAIRED
            page = html.unescape(pages.comparison(Links(), store, compared))
            assert "after-the-fact comparison" in page
            [row] = comparison_rows(page).values()
            [cell] = compared.cells
            assert row.ratio == cell.shown.ratio and row.verdict == cell.shown.text  # type: ignore[union-attr]
            assert cell.ratio.value == pytest.approx(cell.b.value / cell.a.value)  # type: ignore[union-attr]
            a_result, b_result = store.result(a), store.result(b)
            if load_difference(a_result, b_result):
                withheld += 1
                assert cell.shown.verdict not in (FASTER, SLOWER), page  # type: ignore[union-attr]
            else:
                verdicts += cell.shown.verdict in (FASTER, SLOWER)  # type: ignore[union-attr]
            for side, result in (("A", a_result), ("B", b_result)):
                for warning in run_warnings(result):
                    assert f"Run {side} (" in page and warning.text in page
    assert withheld > 200 and verdicts > 10


def test_a_stored_sides_run_page_says_its_warnings(stored):
    path, runs = stored
    with Store.open(location(path)) as store:
        for result, ids in runs[:200]:
            page = html.unescape(pages.run(Links(), store, [], ids["y"]))
            for warning in run_warnings(store.result(ids["y"])):
                assert warning.text in page, result.benchmark


def test_check_shows_the_runs_medians_and_ratio_and_names_both_estimators(stored):
    _, runs = stored
    for result, _ in runs:
        checked = gate.check_paired([result])
        checked.warnings = [w.text for w in run_warnings(result)]
        summary = html.unescape(markdown.render_check(checked, result.benchmark, "x", "y"))
        data = checked.to_json(result.benchmark, "x", "y")
        assert len(checked.cells) == len(result.comparisons)
        for cell, entry, comparison in zip(checked.cells, data["cells"], result.comparisons):
            run_ratio = comparison.comparison.ratio
            baseline, current = result.cell(cell.case, "x"), result.cell(cell.case, comparison.contender)
            assert cell.baseline == baseline.estimates.median.value  # type: ignore[union-attr]
            assert cell.current == current.estimates.median.value  # type: ignore[union-attr]
            shown = format_ratio(run_ratio.value, run_ratio.low, run_ratio.high)
            assert entry["shown"] == shown and shown in summary
            assert f"{format_time(cell.baseline)} | {format_time(cell.current)} | {shown}" in summary
            differs = format_ratio_estimate(cell.current / cell.baseline) != format_ratio_estimate(run_ratio.value)
            assert (entry["estimators"] is not None) == differs, result.benchmark
            if differs:
                assert entry["estimators"] in summary
        for text in checked.warnings:
            assert text in summary


def test_history_shows_each_stored_runs_median(stored):
    path, runs = stored
    with Store.open(location(path)) as store:
        for first, _ in runs[:400:2]:
            [found] = history.series(store, first.benchmark)
            console = Console(file=io.StringIO(), width=300, color_system=None)
            changes = changepoints.detect(found.points, min_step=found.min_step)
            history_view.render(found.points, console, first.benchmark, found.dates, changes)
            said = console.file.getvalue()  # type: ignore[attr-defined]
            for measurement in found.measurements:
                median = store.result(measurement.run.id).cell("case0", "parse").estimates.median  # type: ignore[union-attr]
                assert format_times(median.value, median.low, median.high) in said, first.benchmark


def test_the_pytest_summary_says_the_warnings_of_its_runs(stored):
    _, runs = stored
    for result, _ in runs:
        sides = result.per_side("/repo/b.py")
        lines = warning_lines(sides)
        for side in sides:
            for warning in run_warnings(side):
                assert any(line.endswith(warning.text) for line in lines)
