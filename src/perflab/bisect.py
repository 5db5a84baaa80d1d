"""perflab bisect: the first commit where a benchmark got slower, with the A/B verdict as oracle.

1. Confirm: good and bad are measured interleaved; the bad side must be statistically slower
   (otherwise there is nothing to find, and the error says so with the ratio).
2. Search: the commits between them (``git rev-list --ancestry-path``) are bisected. Each step
   measures good, the middle commit and bad in one interleaved run, so the machine's drift since
   the last step cannot move the goalposts, and classifies the middle commit as bad when its
   slowdown is past the halfway point of good->bad (on a log scale) with its whole 95% interval,
   good when the whole interval is before it. An interval that straddles the halfway point, or a
   run in which bad is not significantly slower than good, is re-measured with a doubled budget
   (``max_remeasure`` times), then decided by the estimate and reported as uncertain.

About log2(N) + 1 measurements for N commits, plus re-measurements near the boundary.
"""

from __future__ import annotations

import math
import subprocess
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from perflab.compare import CompareError, Request, compare
from perflab.results import RunResult, _finite
from perflab.runner import Listener, Settings
from perflab.stats import SLOWER
from perflab.worktrees import repository_root


class BisectError(Exception):
    """The bisection cannot start or go on; one line saying why."""


@dataclass
class Step:
    commit: str
    subject: str
    ratio: float          # time at this commit / time at good, for the case followed
    low: float
    high: float
    regression: float     # ratio bad/good measured in the same run
    bad: bool
    certain: bool
    budget: float         # --max-time of the last measurement
    attempts: int = 1     # measurements this step took (re-measurements included)


@dataclass
class Outcome:
    first_bad: str
    subject: str
    case: str
    confirmed_ratio: tuple[float, float, float]   # bad/good: value, low, high
    steps: list[Step] = field(default_factory=list)
    measurements: int = 0
    commits: int = 0

    @property
    def certain(self) -> bool:
        return all(step.certain for step in self.steps)

    def to_json(self) -> dict:
        """The machine-readable outcome (``perflab bisect --json``), schema perflab.bisect/1."""
        return _finite({
            "schema": "perflab.bisect/1", "first_bad": self.first_bad, "subject": self.subject, "case": self.case,
            "certain": self.certain, "measurements": self.measurements, "commits": self.commits,
            "confirmed_ratio": dict(zip(("value", "low", "high"), self.confirmed_ratio)),
            "steps": [asdict(step) for step in self.steps]})


def bisect(benchmark: Path, good: str, bad: str, settings: Settings, listener: Listener,
           case: str | None = None, contender: str | None = None, max_remeasure: int = 2) -> Outcome:
    root = repository_root(benchmark)
    commits = _commits_between(root, good, bad)

    def measure(revisions: list[str], budget: float) -> RunResult:
        request = Request(benchmark, replace(settings, max_time=budget), cases=[case] if case else None,
                          revisions=revisions, contender=contender, fuzz_examples=0)
        try:
            return compare(request, listener)
        except CompareError as error:
            raise BisectError(str(error)) from None

    confirmation = measure([good, bad], settings.max_time)
    followed, (value, low, high) = _regressed_case(confirmation, bad, good)
    outcome = Outcome(commits[-1], _subject(root, commits[-1]), followed, (value, low, high),
                      measurements=1, commits=len(commits))
    low_index, high_index = -1, len(commits) - 1   # commits[high_index] is known bad; -1 is good
    while high_index - low_index > 1:
        middle = (low_index + high_index) // 2
        step = _classify(commits[middle], _subject(root, commits[middle]), followed, good, bad,
                         measure, settings.max_time, max_remeasure, outcome)
        outcome.steps.append(step)
        if step.bad:
            high_index = middle
        else:
            low_index = middle
    outcome.first_bad, outcome.subject = commits[high_index], _subject(root, commits[high_index])
    return outcome


def _classify(commit: str, subject: str, case: str, good: str, bad: str, measure, budget: float,
              max_remeasure: int, outcome: Outcome) -> Step:
    attempt = 0
    while True:
        result = measure([good, commit, bad], budget)
        outcome.measurements += 1
        found = {c.contender: c for c in result.comparisons if c.case == case}
        if commit not in found or bad not in found:
            raise BisectError(f"commit {commit[:12]} could not be measured on case {case!r}: "
                              + "; ".join(result.failures or ["no comparison"]))
        middle, regression = found[commit].comparison.ratio, found[bad].comparison.ratio
        # A run in which bad is not clearly slower than good (a burst of load) decides nothing:
        # re-measure, and meanwhile hold the middle to the confirmed regression.
        regression_seen = found[bad].verdict == SLOWER
        halfway = math.sqrt(regression.value if regression_seen else outcome.confirmed_ratio[0])
        certain = regression_seen and (middle.low > halfway or middle.high < halfway)
        if certain or attempt == max_remeasure:
            return Step(commit, subject, middle.value, middle.low, middle.high, regression.value,
                        bad=middle.value > halfway, certain=certain, budget=budget, attempts=attempt + 1)
        attempt += 1
        budget *= 2


def _regressed_case(result: RunResult, bad: str, good: str) -> tuple[str, tuple[float, float, float]]:
    """The case whose slowdown good->bad is largest among those called slower."""
    slower = [c for c in result.comparisons if c.contender == bad and c.verdict == SLOWER]
    if not slower:
        found = "; ".join(f"{c.case}: x{c.comparison.ratio.value:.3f} ({c.verdict})"
                          for c in result.comparisons) or "nothing measured"
        raise BisectError(f"no statistically supported slowdown from {good} to {bad} ({found}); "
                          "nothing to bisect")
    worst = max(slower, key=lambda c: c.comparison.ratio.value)
    ratio = worst.comparison.ratio
    return worst.case, (ratio.value, ratio.low, ratio.high)


def _commits_between(root: Path, good: str, bad: str) -> list[str]:
    """Commits after good up to and including bad, oldest first."""
    listed = subprocess.run(["git", "-C", str(root), "rev-list", "--reverse", "--ancestry-path",
                             f"{good}..{bad}"], capture_output=True, text=True)
    if listed.returncode != 0:
        said = listed.stderr.strip().splitlines()
        raise BisectError(f"cannot list commits {good}..{bad}: {said[-1] if said else 'git failed'}")
    commits = listed.stdout.split()
    if not commits:
        raise BisectError(f"{bad} is not a descendant of {good}: no commits to bisect")
    return commits


def _subject(root: Path, commit: str) -> str:
    return subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%s", commit],
                          capture_output=True, text=True).stdout.strip()
