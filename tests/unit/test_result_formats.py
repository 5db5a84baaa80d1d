"""The formats that were missing (issue 25, part 8): ``bisect --markdown`` and ``check --json``
state the same ratios, in the one convention, as the terminal does."""

from __future__ import annotations

import json

from perflab.analysis.gate import REGRESSION, CellCheck, CheckResult, GateComparison
from perflab.measure.bisect import Outcome, Step
from perflab.render import markdown
from perflab.results.quantities import Interval
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
