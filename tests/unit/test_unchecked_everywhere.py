"""A ratio that rests on something not checked says so on every surface (issues 25 and 26).

One run with two such contenders: ``never``, whose output was never compared with the reference's
(no equivalence verdict on its case), and ``short``, equivalent but timed in too few processes to
be checked for repeat-only speed. The terminal, Markdown, the HTML report, ``--json``, the web's
run page and its comparison of two runs each carry the note the results model decided
(perflab.results.verdicts), and none calls ``never`` equivalent or shows its speedup plainly:
before, ``never`` read "invalid (not equivalent)" and ``short``'s note was in the terminal only.
"""

from __future__ import annotations

import html
import io
import json
import re

import pytest
from rich.console import Console
from support.comparison_page import comparison_rows

from perflab.render import markdown
from perflab.render.html import report as report_html
from perflab.render.terminal import results as terminal
from perflab.results.model import (
    EQUIVALENT,
    FUZZING_CASE,
    NEVER_COMPARED,
    REFERENCE,
    CaseComparison,
    Cell,
    Equivalence,
    ProcessRun,
    RunResult,
)
from perflab.results.quantities import CellEstimates, Comparison, Interval
from perflab.results.store import Store, location
from perflab.web import pages
from perflab.web.run_pair import compare_runs
from perflab.web.site import Links

SHORT = "not checked for repeat-only speed: first calls of 2 processes on a side, 3 needed; raise --max-time"


def unchecked_run(commit: str = "a" * 40) -> RunResult:
    result = RunResult(
        benchmark="sorting",
        file="b.py",
        reference="ref",
        settings={"alpha": 0.05, "min_effect": 0.01, "precision": 0.02, "max_time": 2.0},
        metadata={
            "machine": {"cpu_model": "cpu", "cpu_count": 2},
            "python": {"version": "3.12.0"},
            "git": {"commit": commit, "branch": "main", "dirty": False},
        },
        work={},
    )
    for name, time in (("ref", 2e-6), ("never", 1e-6), ("short", 1e-6)):
        median = Interval(time, time * 0.98, time * 1.02)
        runs = [ProcessRun(r + 1, 10, [], [time * (1 + 0.001 * r)] * 3) for r in range(2)]
        result.cells.append(Cell("ONE", name, runs, estimates=CellEstimates(median, median, 2, 6, 0, 0)))
    result.equivalence += [
        Equivalence("ONE", "ref", REFERENCE),
        Equivalence("ONE", "short", EQUIVALENT),
        Equivalence(FUZZING_CASE, "short", EQUIVALENT),
    ]
    for name, unchecked in (("never", None), ("short", SHORT)):
        ratio = Comparison(Interval(0.5, 0.49, 0.51), 1e-6, 6, 0.01)
        valid = result.equivalent("ONE", name)
        result.comparisons.append(CaseComparison("ONE", name, "ref", ratio, 1e-6, "faster", valid, None, unchecked))
        result.geometric_means[name] = ratio.ratio
    return result


NOTES = {"never": f"unchecked: {NEVER_COMPARED}", "short": f"unchecked: {SHORT}"}


def test_the_results_model_decides_the_note_and_the_speedup_still_counts():
    result = unchecked_run()
    for comparison in result.comparisons:
        shown = result.shown(comparison)
        assert (shown.verdict, shown.struck, shown.detail) == ("faster", False, NOTES[comparison.contender])
    assert result.equivalence_label("ONE", "never") == "unchecked"
    assert result.mean_shown("never") == "2.00x faster [1.96x, 2.04x] (includes unchecked cases)"
    assert "never" not in result.struck()


def _row(text: str, contender: str) -> str:
    """The one table row of ``text`` (the terminal's or Markdown's) about ``contender``."""
    rows = [line for line in text.splitlines() if line.startswith(("│", "|"))]
    (row,) = [row for row in rows if re.search(rf"\b{contender}\b", row)]
    return row


def test_the_terminal_marks_the_verdicts_and_explains_under_the_table():
    console = Console(file=io.StringIO(), width=300, color_system=None)
    terminal.render(unchecked_run(), console)
    said = console.file.getvalue()  # type: ignore[attr-defined]
    for contender, note in NOTES.items():
        assert "faster (unchecked: see note)" in _row(said, contender)
        assert f"unchecked ONE/{contender}: {note.removeprefix('unchecked: ')}" in " ".join(said.split())
    assert "equivalent" not in _row(said, "never") and "unchecked" in _row(said, "never")


def test_markdown_carries_the_note_in_the_verdict():
    summary = markdown.render_result(unchecked_run())
    for contender, note in NOTES.items():
        assert f"faster ({note})" in _row(summary, contender)
    assert "equivalent" not in _row(summary, "never")
    assert "(includes unchecked cases)" in summary


def test_the_html_report_carries_the_note_and_its_headline_qualifies_the_fastest():
    page = report_html.render([report_html.Section(unchecked_run())], "t")
    table = re.search(r"<table class='verdicts'>.*?</table>", page, re.S)
    assert table is not None
    rows = re.findall(r"<tr><td>ONE</td>.*?</tr>", table.group(0), re.S)
    for contender, note in NOTES.items():
        (row,) = [html.unescape(row) for row in rows if f"<td>{contender}</td>" in row]
        assert f"faster ({note})" in row
        if contender == "never":
            assert "equivalent" not in row
    assert "(includes unchecked cases)" in html.unescape(str(report_html.headline(unchecked_run())))


def test_json_carries_the_note_beside_each_comparison():
    data = json.loads(json.dumps(unchecked_run().to_json()))
    for entry in data["comparisons"]:
        shown = entry["shown"]
        assert shown["verdict"] == "faster" and not shown["struck"]
        assert shown["detail"] == NOTES[entry["contender"]]
        assert shown["unchecked"] == NOTES[entry["contender"]].removeprefix("unchecked: ")
    (never,) = [entry for entry in data["comparisons"] if entry["contender"] == "never"]
    assert "equivalent" not in json.dumps(never)
    assert RunResult.from_json(data).comparisons[1].unchecked == SHORT  # read back


@pytest.fixture
def store(tmp_path):
    with Store.open(location(str(tmp_path / "store.db"))) as opened:
        yield opened


def test_the_web_run_page_carries_the_note(store):
    page = html.unescape(pages.run(Links(), store, [], store.save(unchecked_run())))
    for contender, note in NOTES.items():
        assert f"faster ({note})" in page, contender
    (never,) = re.findall(r"<tr><td>ONE</td><td>never</td>.*?</tr>", page, re.S)
    assert "equivalent" not in never


def test_the_web_comparison_of_two_runs_says_in_which_run_it_was_unchecked(store):
    a, b = store.save(unchecked_run("a" * 40)), store.save(unchecked_run("b" * 40))
    rows = comparison_rows(pages.comparison(Links(), store, compare_runs(store, a, b)))
    for contender, note in NOTES.items():
        unchecked = note.removeprefix("unchecked: ")
        assert f"unchecked: in A: {unchecked}; in B: {unchecked}" in rows["ONE", contender].verdict
        assert "equivalent" not in rows["ONE", "never"].verdict
