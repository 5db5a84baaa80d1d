"""The formats that were missing (issue 25, part 8): ``bisect --markdown`` and ``check --json``
state the same ratios, in the one convention, as the terminal does; ``check --html`` and
``bisect --html`` say what their ``--markdown`` says."""

from __future__ import annotations

import json
from dataclasses import replace

from support.summary_tables import html_rows, markdown_rows, page_text

from perflab.analysis.gate import REGRESSION, CellCheck, CheckResult, GateComparison, InstructionCheck
from perflab.measure.bisect import Outcome, Step
from perflab.render import gate_summaries as summaries
from perflab.render import markdown
from perflab.render.html import gate_pages
from perflab.results.quantities import NO_DIFFERENCE, Interval
from perflab.units import format_ratio


def test_a_bisection_in_markdown_names_the_first_bad_commit_and_every_step():
    outcome = Outcome(
        first_bad="a17a45cf0123456789",
        subject="parse: one | more [link](https://x) pass",
        case="NESTED",
        confirmed_ratio=(1.22, 1.18, 1.26),
        steps=[
            Step("9794ac99aaaa", "fast path", 1.01, 0.99, 1.03, 1.21, bad=False, certain=True, budget=20),
            Step("a17a45cf0123", "parse: one", 1.23, 1.19, 1.27, 1.22, bad=True, certain=False, budget=20, check=True),
        ],
        measurements=1,
        commits=1,
        certain=False,
    )
    text = markdown.render_bisect(outcome)
    assert "first bad commit `a17a45cf0123`" in text
    assert (
        f"bad is {format_ratio(1.22, 1.18, 1.26)} than good" in text and "1 commit searched in 1 measurement." in text
    )
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 2
    assert format_ratio(1.23, 1.19, 1.27) in rows[1] and rows[1].endswith("| check: bad (uncertain) |")
    assert "\\[link\\]" in text and "one \\| more" in text  # the subject cannot become a link or a column
    assert "raise --max-time" in text


def test_a_check_outcome_as_json_carries_each_ratio_its_interval_and_what_every_output_shows():
    ratio = Interval(1.22, 1.18, 1.26)
    checked = CheckResult(
        threshold=0.05,
        alpha=0.01,
        paired=True,
        cells=[CellCheck("NESTED", "stdlib", 1e-5, 1.22e-5, GateComparison(ratio, 1e-6, 1e-4, (8, 8)), REGRESSION)],
    )
    data = json.loads(json.dumps(checked.to_json("json_dumps", "`main` at 9794ac99", "working tree at a17a45cf")))
    assert data["schema"] == "perflab.check/1" and data["passed"] is False
    [cell] = data["cells"]
    assert cell["comparison"]["ratio"] == {"value": 1.22, "low": 1.18, "high": 1.26}
    assert cell["shown"] == format_ratio(1.22, 1.18, 1.26) == "1.22x slower [1.18x, 1.26x]"
    assert cell["verdict"] == REGRESSION
    assert checked.to_json("b", "a", "c")["passed"] is False
    assert CheckResult(threshold=0.05, alpha=0.01).to_json("b", "a", "c")["passed"] is True


def test_run_writes_its_result_as_markdown_and_html_as_compare_does(tmp_path):
    import io
    from argparse import Namespace

    from rich.console import Console
    from support.store_results import synthetic_result

    from perflab.cli.support.measuring import result_writes
    from perflab.cli.support.options import write_outputs

    result = synthetic_result(benchmark="sums")
    result.settings.update(alpha=0.01, min_effect=0.01)  # as a run records them
    args = Namespace(json=None, markdown=str(tmp_path / "s.md"), html=str(tmp_path / "r.html"))
    failed = write_outputs(result_writes(result, args, Console(file=io.StringIO()), "run", [], ["not profiled"]))
    assert failed == {}
    assert markdown.render_result(result) == (tmp_path / "s.md").read_text()
    page = (tmp_path / "r.html").read_text()
    assert "<title>perflab run: sums</title>" in page and "not profiled" in page


# ---- check --html and bisect --html: the same as their --markdown ---------------------------------

EVIL = "</td><script>alert(1)</script>"


def _bisection() -> Outcome:
    return Outcome(
        first_bad="a17a45cf0123456789",
        subject=f"parse {EVIL} | [link](https://x)",
        case=f"NESTED{EVIL}",
        confirmed_ratio=(1.22, 1.18, 1.26),
        steps=[
            Step("9794ac99aaaa", "fast path", 1.01, 0.99, 1.03, 1.21, bad=False, certain=True, budget=20),
            Step(
                "b0b0b0b0b0b0", EVIL, 1.3, 1.2, 1.4, 1.2, bad=True, certain=True, budget=20, equivalence="mutates input"
            ),
            Step("a17a45cf0123", "parse", 1.23, 1.19, 1.27, 1.22, bad=True, certain=False, budget=20, check=True),
        ],
        measurements=3,
        commits=2,
        certain=False,
    )


def _check() -> CheckResult:
    def cell(case, ratio, verdict):
        return CellCheck(
            case,
            "stdlib",
            1e-5,
            ratio * 1e-5,
            GateComparison(Interval(ratio, ratio - 0.04, ratio + 0.04), 1e-6, 1e-4, (8, 8)),
            verdict,
        )

    return CheckResult(
        threshold=0.05,
        alpha=0.01,
        paired=True,
        cells=[cell(f"NESTED{EVIL}", 1.22, REGRESSION), cell("FLAT", 1.0, NO_DIFFERENCE)],
        not_compared=[f"GONE{EVIL}/stdlib"],
        notes=[f"other machine {EVIL}"],
        instructions=[InstructionCheck("FLAT", "stdlib", _counts(1000.0), _counts(1200.0), REGRESSION)],
        instructions_threshold=0.005,
    )


def _counts(value: float):
    from perflab.analysis.counts import InstructionsEstimate

    return InstructionsEstimate(value, value * 0.99, value * 1.01, (value,), 100)


def test_a_bisection_in_html_says_what_its_markdown_says():
    outcome = _bisection()
    page, text = gate_pages.render_bisect(outcome), markdown.render_bisect(outcome)
    assert html_rows(page) == markdown_rows(text) and len(html_rows(page)) == 3
    assert html_rows(page)[1][-1] == "bad MUTATES INPUT" and "<strong>MUTATES INPUT</strong>" in page
    said = page_text(page)
    assert f"first bad commit a17a45cf0123 {outcome.subject}" in said
    assert (
        f"bad is {format_ratio(1.22, 1.18, 1.26)} than good" in said and "2 commits searched in 3 measurements" in said
    )
    assert "raise --max-time" in said
    assert "<script>alert" not in page  # the subject and the case are escaped


def test_a_check_in_html_says_what_its_markdown_says():
    checked = _check()
    page = gate_pages.render_check(checked, f"bench{EVIL}", "main at 9794ac99", "a17a45cf (this run)")
    text = markdown.render_check(checked, f"bench{EVIL}", "`main` at 9794ac99", "a17a45cf (this run)")
    assert html_rows(page) == markdown_rows(text) and len(html_rows(page)) == 3
    assert html_rows(page)[0][4] == format_ratio(1.22, 1.18, 1.26) and html_rows(page)[0][-1] == REGRESSION
    said = page_text(page)
    assert f"perflab: 2 regression(s), more than 1.05x slower or 0.50% more instructions, in bench{EVIL}" in said
    assert "Baseline: main at 9794ac99 Current: a17a45cf (this run)" in said
    assert f"Not compared (measured on one side only): GONE{EVIL}/stdlib" in said and f"other machine {EVIL}" in said
    assert "perflab qualify" in said  # the paired check says what it cannot say
    assert summaries.method(checked) in said and summaries.method(checked) in text
    assert "<script>alert" not in page


def test_a_bisection_that_skipped_unbuildable_commits_says_so_on_every_surface():
    from rich.console import Console

    from perflab.render.terminal import bisect as bisect_terminal

    outcome = _bisection()
    outcome.skipped, outcome.undecided = ["c0ffee000000aaaa", "deadbeef0000bbbb"], ["deadbeef0000bbbb"]
    said = (
        "Skipped, as they do not build: c0ffee000000, deadbeef0000; the first bad commit may also be the one just "
        "before it: deadbeef0000."
    )
    console = Console(record=True, width=400)
    bisect_terminal.render(outcome, console)
    for text in (markdown.render_bisect(outcome), page_text(gate_pages.render_bisect(outcome)), console.export_text()):
        assert said in text
        assert "raise --max-time" not in text  # uncertain because of the skipped commit, not the budget
    assert outcome.to_json()["skipped"] == outcome.skipped and outcome.to_json()["undecided"] == ["deadbeef0000bbbb"]


def test_a_bisection_says_whether_it_is_confirmed_and_by_which_measurements():
    good = Step("9794ac99aaaa", "fast path", 1.01, 0.99, 1.03, 1.5, bad=False, certain=True, budget=20, check=True)
    bad = Step("a17a45cf0123", "parse", 1.48, 1.4, 1.55, 1.5, bad=True, certain=True, budget=20, check=True, pooled=2)
    searched = Step("a17a45cf0123", "parse", 1.5, 1.4, 1.6, 1.5, bad=True, certain=True, budget=20)
    outcome = Outcome("a17a45cf0123", "parse", "NESTED", (1.5, 1.4, 1.6), steps=[searched, good, bad], certain=True)
    said = outcome.confirmation
    assert said.startswith("Confirmed by the final check") and "9794ac99aaaa (fast path) good" in said
    assert "a17a45cf0123 (parse) bad, 1.48x slower vs good, 2 measurements pooled" in said
    assert said in markdown.render_bisect(outcome) and said in page_text(gate_pages.render_bisect(outcome))
    assert outcome.to_json()["confirmation"] == said
    doubtful = Outcome(
        "a17a45cf0123", "parse", "NESTED", (1.5, 1.4, 1.6), steps=[searched, good, replace(bad, certain=False)]
    )
    assert (
        doubtful.confirmation.startswith("Not confirmed: the final check (")
        and "(parse) bad (uncertain)" in doubtful.confirmation
    )
    alone = Outcome("a17a45cf0123", "parse", "NESTED", (1.5, 1.4, 1.6), certain=True)  # no commit between good and bad
    assert alone.confirmation.startswith("Confirmed by the first measurement: bad is the only commit after good")
    also = replace(outcome, also_regressed=["FLAT"])
    assert (
        "Also slower at bad than at good, not followed: FLAT (--case NAME bisects one of them)."
        in markdown.render_bisect(also)
    )
