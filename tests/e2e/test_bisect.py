"""perflab bisect on a real git history made in the test."""

import os
import signal
import subprocess

import pytest
from support.cli import VERDICT, load_json, run_perflab, start_until
from support.git_repos import git_repository
from support.summary_tables import html_rows, markdown_rows, page_text

BENCH = """
import perflab
import mylib

bench = perflab.Benchmark("squares")

@bench.case
def K():
    return list(range(300))

@bench.contender
def lib(xs):
    return mylib.work(xs)
"""
FAST = "def work(xs):\n    return sum(x * x for x in xs)  # version {n}\n"
SLOW = "def work(xs):\n    return sum(x * x for x in xs) + sum(x * x for x in xs) * 0  # version {n}\n"


@pytest.fixture
def history(tmp_path):
    """Eight commits; the code doubles its work from commit 5 on."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    (repo / "bench.py").write_text(BENCH)
    for n in range(1, 9):
        (repo / "mylib.py").write_text((SLOW if n >= 5 else FAST).format(n=n))
        git("add", "-A")
        git("commit", "-qm", f"commit {n}")
    return repo


def test_bisect_finds_the_first_slow_commit(history, tmp_path):
    out, summary, page = tmp_path / "bisect.json", tmp_path / "bisect.md", tmp_path / "bisect.html"
    result = run_perflab(
        "bisect",
        "--good",
        "HEAD~7",
        "--bad",
        "HEAD",
        history / "bench.py",
        *VERDICT,
        "--json",
        out,
        "--markdown",
        summary,
        "--html",
        page,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "first bad commit" in result.stdout and "commit 5" in result.stdout.split("first bad commit")[1]
    measurements = int(result.stdout.split("first bad commit: ")[1].split("(")[1].split(" measurements")[0])
    assert measurements <= 1 + 3 + 1 + 4  # confirmation, log2(7) steps, the check, a few re-measurements

    # --json: the same outcome, machine-readable
    outcome = load_json(out)
    fifth = subprocess.run(["git", "-C", history, "rev-parse", "HEAD~3"], capture_output=True, text=True).stdout.strip()
    assert outcome["schema"] == "perflab.bisect/1" and outcome["first_bad"] == fifth
    assert outcome["subject"] == "commit 5" and outcome["commits"] == 7 and outcome["case"] == "K"
    searched = [step for step in outcome["steps"] if not step["check"]]
    checked = [step for step in outcome["steps"] if step["check"]]
    assert 1 + len(searched) + 1 <= outcome["measurements"] == measurements
    assert [step["subject"] for step in checked[-2:]] == ["commit 4", "commit 5"]  # either side of the boundary
    assert isinstance(outcome["certain"], bool) and outcome["confirmed_ratio"]["value"] > 1
    for step in outcome["steps"]:  # the work doubles: a 2x ratio, far from any noise
        assert step["low"] <= step["ratio"] <= step["high"]
        assert step["bad"] == (int(step["subject"].split()[-1]) >= 5) == (step["ratio"] > 1.4)

    # --markdown and --html: the same steps, the same words
    assert html_rows(page.read_text()) == markdown_rows(summary.read_text())
    assert len(markdown_rows(summary.read_text())) == len(outcome["steps"])
    assert f"first bad commit {fifth[:12]} commit 5" in page_text(page.read_text())


def test_no_regression_means_nothing_to_bisect(history):
    result = run_perflab(
        "bisect",
        "--good",
        "HEAD~7",
        "--bad",
        "HEAD~4",
        history / "bench.py",
        *VERDICT,
        timeout=300,
    )
    assert result.returncode == 2
    assert "no statistically supported slowdown" in result.stderr and "nothing to bisect" in result.stderr
    assert "in 3 measurement(s)" in result.stderr  # re-measured twice, with doubled budgets, before giving up


@pytest.mark.parametrize(
    "good, bad, message",
    [
        ("HEAD", "HEAD~3", "not a descendant"),
        ("no-such-rev", "HEAD", "--good no-such-rev: no such revision"),
        ("HEAD", "HEAD", "are the same commit"),
    ],
)
def test_bad_ranges(history, good, bad, message):
    result = run_perflab("bisect", "--good", good, "--bad", bad, history / "bench.py")
    assert result.returncode == 2 and message in result.stderr


def test_revisions_never_reach_git_as_options(history, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    result = run_perflab("bisect", f"--good=--output={victim}", "--bad=HEAD", history / "bench.py")
    assert result.returncode == 2 and "no such revision" in result.stderr
    assert victim.read_text() == "keep me"


def test_benchmark_missing_at_one_end(history):
    (history / "late.py").write_text(BENCH)
    subprocess.run(["git", "-C", history, "add", "late.py"], check=True)
    subprocess.run(["git", "-C", history, "commit", "-qm", "late"], check=True)
    result = run_perflab(
        "bisect", "--good", "HEAD~3", "--bad", "HEAD", history / "late.py", "--benchmark-from-revision"
    )
    assert result.returncode == 2 and "late.py does not exist at revision 'HEAD~3'" in result.stderr


def test_ctrl_c_stops_the_bisection_and_removes_its_worktrees(history):
    command = [
        "bisect",
        "--good",
        "HEAD~7",
        "--bad",
        "HEAD",
        history / "bench.py",
        "--max-time",
        "60",
        "--precision",
        "0.1",
    ]
    # Inside a measurement (the runner keeps what it measured on Ctrl-C): once timing has begun,
    # not after a fixed sleep, which a loaded machine spends starting up.
    process, lines = start_until(command, history, "timing", dict(os.environ))
    process.send_signal(signal.SIGINT)
    process.wait(60)
    stderr = "".join(lines)
    assert process.returncode == 130, stderr
    worktrees = subprocess.run(["git", "-C", history, "worktree", "list"], capture_output=True, text=True).stdout
    assert len(worktrees.strip().splitlines()) == 1, worktrees


# Two cases: only SLOWED's code gets slower (from commit 3 on); FLAT's never changes.
TWO_CASES = """
import perflab
import mylib

bench = perflab.Benchmark("two")

@bench.case
def SLOWED():
    return list(range(300))

@bench.case
def FLAT():
    return list(range(30))

@bench.contender
def lib(xs):
    return mylib.work(xs) if len(xs) > 100 else sum(xs)
"""


def test_at_its_defaults_a_two_case_benchmark_follows_the_case_that_regressed(tmp_path):
    """Four commits, an untracked benchmark (run on each commit's code): both cases are measured
    once at good and bad, then only SLOWED, each measurement's budget said as its own."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    for n in range(1, 5):
        (repo / "mylib.py").write_text((SLOW if n >= 3 else FAST).format(n=n))
        git("add", "-A")
        git("commit", "-qm", f"commit {n}")
    (repo / "bench.py").write_text(TWO_CASES)
    out, summary, page = tmp_path / "bisect.json", tmp_path / "bisect.md", tmp_path / "bisect.html"
    result = run_perflab(
        "bisect", "--good", "HEAD~3", "--bad", "HEAD", repo / "bench.py", *VERDICT,
        "--json", out, "--markdown", summary, "--html", page, cwd=repo, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    outcome = load_json(out)
    assert outcome["case"] == "SLOWED" and outcome["subject"] == "commit 3" and outcome["also_regressed"] == []
    said = [line for line in result.stderr.splitlines() if line.startswith("measuring ")]
    assert said[0].startswith("measuring good, bad on every case: --max-time 60 s for this measurement")
    assert len(said) == outcome["measurements"] >= 3  # the confirmation, a step at least, the check
    # A loaded machine may leave the first measurement undecided: good and bad are then measured
    # again on every case with a doubled budget, and only after that is one case followed.
    confirming = [line for line in said if line.startswith("measuring good, bad on every case: ")]
    assert said[: len(confirming)] == confirming, said
    assert all(
        " on SLOWED: --max-time " in line and "for this measurement" in line for line in said[len(confirming) :]
    ), said
    checked = [step for step in outcome["steps"] if step["check"]][-2:]
    assert [step["subject"] for step in checked] == ["commit 2", "commit 3"]
    confirmation = outcome["confirmation"]
    assert confirmation.startswith("Confirmed by the final check" if outcome["certain"] else "Not confirmed")
    assert all(step["commit"][:12] in confirmation for step in checked)  # by which measurements
    assert confirmation in " ".join(result.stdout.split())
    assert confirmation in summary.read_text() and confirmation in page_text(page.read_text())
