"""The sticky pull-request comment (perflab check --comment github): its REST calls, against the
documented request and response shapes (support/github_api.py: GitHub cannot be reached from the
test machines), and its body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from support.github_api import REPOSITORY, TOKEN, FakeGitHub, serving

from perflab.analysis import detectable, gate
from perflab.github import GitHubError, PullRequest
from perflab.render.markdown import COMMENT_ROWS, comment_marker, render_comment
from perflab.results.quantities import FASTER, NO_DIFFERENCE, Interval


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with serving() as server:
        yield server
    assert server.problems == []  # every request had the documented shape


def pull_request(server: FakeGitHub, number: int = 7) -> PullRequest:
    return PullRequest(REPOSITORY, number, TOKEN, server.api)


def test_the_first_push_creates_the_comment_and_later_pushes_update_it(github):
    marker = comment_marker("bench")
    first = pull_request(github).upsert_comment(marker, f"{marker}\nfirst")
    assert github.requests[-1][0] == "POST"
    second = pull_request(github).upsert_comment(marker, f"{marker}\nsecond")
    assert github.requests[-1][0] == "PATCH" and second == first
    [comment] = github.comments[7]
    assert comment["body"] == f"{marker}\nsecond"


def test_the_comment_is_found_on_a_later_page_among_other_comments_and_benchmarks(github):
    github.page_size = 2  # as if 100 comments filled each page
    ours, other_benchmark = comment_marker("bench"), comment_marker("other")
    github.comments[7] = [github.comment(7, f"review {n}") for n in range(3)]
    github.comments[7] += [github.comment(7, f"{other_benchmark}\nother"), github.comment(7, f"{ours}\nold")]
    pull_request(github).upsert_comment(ours, f"{ours}\nnew")
    assert [method for method, _ in github.requests] == ["GET", "GET", "GET", "PATCH"]
    assert [c["body"] for c in github.comments[7]] == [
        "review 0",
        "review 1",
        "review 2",
        f"{other_benchmark}\nother",
        f"{ours}\nnew",
    ]


def test_a_refused_call_is_one_line_saying_what_the_token_needs(github):
    github.refuse = 403
    with pytest.raises(GitHubError, match=r"403 Resource not accessible by integration .*pull-requests: write"):
        pull_request(github).upsert_comment(comment_marker("bench"), "body")


def test_the_pull_request_comes_from_the_actions_environment(tmp_path):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 42, "pull_request": {"number": 42}}))
    environ = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_EVENT_PATH": str(event)}
    found = PullRequest.from_environment(None, environ)
    assert (found.repository, found.number, found.api) == (REPOSITORY, 42, "https://api.github.com")
    assert PullRequest.from_environment(9, {**environ, "GITHUB_API_URL": "https://ghe.example/api/v3"}).number == 9
    event.write_text(json.dumps({"ref": "refs/heads/main", "commits": []}))  # a push event
    with pytest.raises(GitHubError, match="not for a pull request .* pass --pr NUMBER"):
        PullRequest.from_environment(None, environ)
    with pytest.raises(GitHubError, match="GITHUB_TOKEN is not set"):
        PullRequest.from_environment(1, {"GITHUB_REPOSITORY": REPOSITORY})
    with pytest.raises(GitHubError, match="GITHUB_REPOSITORY is 'perflab', not owner/name"):  # it is set
        PullRequest.from_environment(1, {**environ, "GITHUB_REPOSITORY": "perflab"})


def cell(case: str, ratio: float, verdict: str) -> gate.CellCheck:
    comparison = gate.GateComparison(Interval(ratio, ratio * 0.98, ratio * 1.02), 0.001, 1.0, (10, 10))
    return gate.CellCheck(case, "x", 1e-5, ratio * 1e-5, comparison, verdict)


def test_the_comment_shows_regressions_then_the_largest_changes_and_folds_the_rest():
    cells = [cell(f"C{n}", 1 + n / 1000, NO_DIFFERENCE) for n in range(COMMENT_ROWS + 3)]
    cells += [cell("FASTER", 0.5, FASTER), cell("REGRESSED", 1.08, gate.REGRESSION)]
    checked = gate.CheckResult(0.05, 0.01, paired=True, cells=cells)
    body = render_comment(
        checked, "bench", "`main`", "head", {"this workflow run": "https://github.com/o/r/actions/runs/1"}
    )
    assert body.startswith(comment_marker("bench") + "\n### :x: perflab: 1 regression(s)")
    opened, _, folded = body.partition("<details><summary>")
    rows = re.findall(r"^\| (\w+) \| x \|", opened, flags=re.MULTILINE)
    assert rows[:3] == ["REGRESSED", "FASTER", f"C{COMMENT_ROWS + 2}"] and len(rows) == COMMENT_ROWS
    assert folded.startswith("5 more cell(s), smaller changes</summary>")
    assert re.findall(r"^\| (\w+) \| x \|", folded, flags=re.MULTILINE) == ["C4", "C3", "C2", "C1", "C0"]
    assert "| 2.00x faster [1.96x, 2.04x] | faster |" in opened  # the one convention, as in the terminal
    assert "[this workflow run](https://github.com/o/r/actions/runs/1)" in body


def test_the_comment_says_what_this_runner_detects_and_escapes_names():
    checked = gate.CheckResult(0.05, 0.01, paired=True, cells=[cell("![x](https://e.vil/)", 1.0, NO_DIFFERENCE)])
    floor = detectable.Floor("![x](https://e.vil/)", "x", 10, 0.02, 1.031, 60.0)
    checked.qualification = detectable.Qualification("bench", {}, 60.0, 0.01, 0.01, [floor])
    body = render_comment(checked, "a --> b", "b", "c", {})
    assert "this runner detects >= 3.1% at 60 s; 1.5% needs ~230 s (--max-time 230 --precision 0.57)" in body
    # the URL no longer live either (a zero-width space before ://: issue 42)
    assert "![x](https://e.vil/)" not in body and "\\!\\[x\\](https\u200b://e.vil/)" in body
    # The hidden marker holds the name hashed: a name cannot end the HTML comment early.
    assert re.fullmatch(r"<!-- perflab check [0-9a-f]{16} -->", body.splitlines()[0])
