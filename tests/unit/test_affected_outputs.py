"""``check --affected``'s skipped cells, as Markdown, the pull-request comment, HTML and JSON say
them: one line per reason, names escaped where they land."""

from __future__ import annotations

from perflab.analysis.gate import CheckResult, SkippedCell
from perflab.render.html.gate_pages import render_check as render_html
from perflab.render.markdown import render_check, render_comment

REASON = "reaches none of the 3 changed functions"


def skipped_check() -> CheckResult:
    check = CheckResult(0.05, 0.01, paired=True)
    check.selection = "--affected main: 3 changed functions since main; 0 of 3 cell(s) reach them and run, 3 skipped"
    check.skipped = [
        SkippedCell("NESTED", "stdlib", REASON),
        SkippedCell("<b>HUGE|x</b>", "stdlib", REASON),
        SkippedCell("EMPTY", "stdlib", "another reason"),
    ]
    return check


def test_markdown_and_the_comment_list_the_skipped_cells_by_reason_escaped():
    for text in (
        render_check(skipped_check(), "bench", "b", "c"),
        render_comment(skipped_check(), "bench", "b", "c", {}),
    ):
        assert "--affected main: 3 changed functions since main; 0 of 3 cell(s) reach them and run, 3 skipped" in text
        assert f"- Skipped, {REASON}: NESTED/stdlib, &lt;b&gt;HUGE\\|x&lt;/b&gt;/stdlib" in text
        assert "- Skipped, another reason: EMPTY/stdlib" in text
        assert "<b>" not in text


def test_html_lists_them_escaped():
    page = render_html(skipped_check(), "bench", "b", "c")
    assert f"<li>Skipped, {REASON}: NESTED/stdlib, &lt;b&gt;HUGE|x&lt;/b&gt;/stdlib</li>" in page
    assert "0 of 3 cell(s) reach them and run" in page


def test_json_holds_each_skipped_cell_and_why():
    data = skipped_check().to_json("bench", "b", "c")
    assert data["skipped"][0] == {"case": "NESTED", "contender": "stdlib", "reason": REASON}
    assert data["selection"].startswith("--affected main") and data["passed"] is True
