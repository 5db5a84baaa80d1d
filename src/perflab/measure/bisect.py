"""perflab bisect: the first commit where a benchmark got slower, with the A/B verdict as oracle.

1. Confirm: good and bad are measured interleaved; the bad side must be statistically slower,
   if need be after re-measuring with a doubled budget (otherwise there is nothing to find, and
   the error says so with the ratio).
   Every case is measured there; the search follows the one that regressed most (or --case's),
   and measures only that case.
2. Search: the commits between them (``git rev-list --ancestry-path``) are bisected. Each step
   measures good, the middle commit and bad in one interleaved run, so the machine's drift since
   the last step cannot move the goalposts, and classifies the middle commit as bad when its
   slowdown is past the halfway point of good->bad (on a log scale) with its whole 95% interval,
   good when the whole interval is before it. An interval that straddles the halfway point, or a
   run in which bad is not significantly slower than good, is re-measured with a doubled budget
   (``max_remeasure`` times), then decided by the estimate and reported as uncertain. Every
   measurement of a commit counts: its distances to the halfway point are pooled (weighted by
   precision), so a re-measurement adds to the earlier runs instead of replacing them.
3. Check: the last good and the first bad commit are measured again, together, with good and
   bad. A single wrong step anywhere in the search leaves a slow "last good" or a fast "first
   bad", so the check catches it: the contradicted verdict is replaced and the search goes on
   between the verdicts that stand (``max_reopen`` times). The answer is certain when the
   check agreed with the search and decided both commits with their whole intervals.

About log2(N) + 2 measurements for N commits, plus re-measurements near the boundary.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from perflab import git
from perflab.measure.ab_test import CompareError, Request, Unbuildable, compare
from perflab.measure.builds import Choice
from perflab.measure.runner import Listener
from perflab.measure.settings import Settings
from perflab.measure.worktrees import benchmark_repository, differs_at
from perflab.option_types import FROM_REVISION
from perflab.results.model import CaseComparison, RunResult, json_numbers
from perflab.results.quantities import SLOWER
from perflab.results.warnings import run_warnings
from perflab.units import format_ratio, format_ratio_estimate


class BisectError(Exception):
    """The bisection cannot start or go on; one line saying why."""


@dataclass
class Step:
    commit: str
    subject: str
    ratio: float  # time at this commit / time at good, for the case followed (last run)
    low: float
    high: float
    regression: float  # ratio bad/good measured in the same run
    bad: bool  # decided by every measurement of this commit so far, pooled
    certain: bool
    budget: float  # --max-time of the last measurement
    attempts: int = 1  # measurements this step took (re-measurements included)
    check: bool = False  # the final check of the boundary, not a bisection step
    pooled: int = 1  # measurements of this commit behind bad/certain (all of them count)
    # Why this commit's timing is not of the same operation as good's (e.g. "mutates input"), from
    # the equivalence checks of its last measurement; None: equivalent.
    equivalence: str | None = None


@dataclass
class Outcome:
    first_bad: str
    subject: str
    case: str
    confirmed_ratio: tuple[float, float, float]  # bad/good: value, low, high
    steps: list[Step] = field(default_factory=list)
    measurements: int = 0
    commits: int = 0
    # The final check agreed with the search and decided both sides of the boundary with their
    # whole intervals.
    certain: bool = False
    skipped: list[str] = field(default_factory=list)  # commits that do not build, as git bisect skip
    undecided: list[str] = field(default_factory=list)  # skipped ones just before first_bad: it may be one of them
    warnings: list[str] = field(default_factory=list)  # of every run measured (perflab.results.warnings), once each
    # Other cases slower at bad than at good in the first measurement, not followed (--case bisects one).
    also_regressed: list[str] = field(default_factory=list)

    @property
    def confirmation(self) -> str:
        """Whether the answer is confirmed, and by which measurements: the final check's."""
        checks: list[Step] = []  # the final check's steps: the last ones, after the search's
        for step in reversed(self.steps):
            if not step.check:
                break
            checks.insert(0, step)
        said = "; ".join(
            f"{step.commit[:12]} ({step.subject}) {'bad' if step.bad else 'good'}"
            f"{'' if step.certain else ' (uncertain)'}, {format_ratio_estimate(step.ratio)} vs good"
            + (f", {step.pooled} measurements pooled" if step.pooled > 1 else "")
            for step in checks
        )
        measured = f"measured again together with good and bad in one run: {said}" if checks else ""
        if self.certain and not checks:  # nothing between good and bad: the confirming measurement decided it
            return (
                f"Confirmed by the first measurement: bad is the only commit after good, and it was "
                f"{format_ratio(*self.confirmed_ratio)} than good."
            )
        if self.certain:
            return (
                f"Confirmed by the final check: the commits either side of the boundary {measured}, each "
                "decided with its whole 95% interval on its side of halfway between good and bad."
            )
        if self.undecided:
            return "Not confirmed: skipped commits (they do not build) lie just before it, and any may be the first bad one."
        return (
            "Not confirmed: the final check "
            + (f"({measured}) " if checks else "")
            + "did not decide both sides of the boundary with their whole intervals (or contradicted the "
            "search): the most likely commit, not a proven one; raise --max-time."
        )

    def to_json(self) -> dict:
        """The machine-readable outcome (``perflab bisect --json``), schema perflab.bisect/1."""
        return json_numbers(
            {
                "schema": "perflab.bisect/1",
                "first_bad": self.first_bad,
                "subject": self.subject,
                "case": self.case,
                "certain": self.certain,
                "measurements": self.measurements,
                "commits": self.commits,
                "confirmed_ratio": dict(zip(("value", "low", "high"), self.confirmed_ratio)),
                "confirmation": self.confirmation,
                "skipped": self.skipped,
                "undecided": self.undecided,
                "warnings": self.warnings,
                "also_regressed": self.also_regressed,
                "steps": [asdict(step) for step in self.steps],
            }
        )


def bisect(
    benchmark: Path,
    good: str,
    bad: str,
    settings: Settings,
    listener: Listener,
    case: str | None = None,
    contender: str | None = None,
    max_remeasure: int = 2,
    max_reopen: int = 2,
    build: Choice = Choice(),
    from_revision: bool = False,
    on_step: Callable[[str, float], None] = lambda what, budget: None,
) -> Outcome:
    """``on_step(what, budget)``: before each measurement, what it measures and its own --max-time."""
    root = benchmark_repository(benchmark)
    commits = _commits_between(root, good, bad)
    warned: dict[str, None] = {}  # every measurement's run warnings, in order, once each
    names = {good: "good", bad: "bad"}

    def measure(revisions: list[str], budget: float, cases: list[str] | None) -> RunResult:
        shown = ", ".join(names.get(revision, revision[:12]) for revision in revisions)
        on_step(f"measuring {shown} on {', '.join(cases) if cases else 'every case'}", budget)
        request = Request(
            benchmark,
            replace(settings, max_time=budget),
            cases=cases,
            revisions=revisions,
            contender=contender,
            fuzz_examples=0,
            build=build,
            from_revision=from_revision,
        )
        try:
            result = compare(request, listener)
        except Unbuildable as error:
            if error.revision in (good, bad):
                raise BisectError(str(error)) from None
            raise  # a commit in between: the search skips it
        except CompareError as error:
            raise BisectError(str(error)) from None
        if result.interrupted:  # the runner keeps what it measured on Ctrl-C; bisect stops
            raise KeyboardInterrupt
        warned.update((warning.text, None) for warning in run_warnings(result))
        return result

    evidence: dict[str, list[_Distance]] = {}  # commit -> each of its measurements

    def classify(indexes: list[int], check: bool) -> list[Step]:
        steps = _classify(
            [commits[i] for i in indexes],
            [git.subject(root, commits[i]) for i in indexes],
            followed,
            good,
            bad,
            lambda revisions, budget: measure(revisions, budget, [followed]),  # only the case followed
            settings.max_time,
            max_remeasure,
            outcome,
            check,
            evidence,
        )
        outcome.steps.extend(steps)
        return steps

    # A 5% regression is often not significant in one short run on a busy machine: re-measure
    # with a doubled budget before concluding there is nothing to find.
    # Every case is measured here (at good and bad, once), and only the one that regressed most
    # is followed by the search.
    budget, confirmations, cases = settings.max_time, 1, [case] if case else None
    confirmation = measure([good, bad], budget, cases)
    while not _slower(confirmation, bad) and confirmations <= max_remeasure:
        budget, confirmations = budget * 2, confirmations + 1
        confirmation = measure([good, bad], budget, cases)
    try:
        followed, (value, low, high) = _regressed_case(confirmation, bad, good, confirmations)
    except BisectError as error:
        changed = (
            []
            if from_revision
            else [r for r in (good, bad) if differs_at(root, _commit(root, "", r), benchmark.resolve())]
        )
        if not changed:
            raise
        raise BisectError(
            f"{error}; {benchmark.name} ran on every commit's code, and {' and '.join(changed)} "
            f"holds another version of it: {FROM_REVISION} runs each commit's own, if the file is the code measured"
        ) from None
    outcome = Outcome(
        commits[-1],
        git.subject(root, commits[-1]),
        followed,
        (value, low, high),
        measurements=confirmations,
        commits=len(commits),
        also_regressed=[c.case for c in _slower(confirmation, bad) if c.case != followed],
    )
    skipped: set[int] = set()
    first_bad, outcome.certain = search(len(commits), classify, max_reopen, skipped)
    outcome.first_bad, outcome.subject = commits[first_bad], git.subject(root, commits[first_bad])
    outcome.skipped = [commits[index] for index in sorted(skipped)]
    before = first_bad
    while before - 1 in skipped:
        before -= 1
    outcome.undecided = commits[before:first_bad]
    outcome.warnings = list(warned)
    return outcome


def search(
    count: int,
    classify: Callable[[list[int], bool], list[Step]],
    max_reopen: int = 2,
    skipped: set[int] | None = None,
) -> tuple[int, bool]:
    """The index of the first bad one of ``count`` commits (the last is known bad), and whether the check
    confirmed it; ``classify(indexes, check)`` measures commits and calls each good or bad.

    A commit that does not build (``classify`` raises Unbuildable) goes into ``skipped`` and the
    untried commit nearest the middle is measured instead, as ``git bisect skip`` does. When only
    skipped commits are left between the last good and the first bad one, the answer is uncertain:
    the first bad commit may be any of them."""
    last = count - 1
    skipped = set() if skipped is None else skipped
    verdicts: dict[int, Step] = {}  # commit index -> the verdict that stands; -1 (good) and last are known
    for _ in range(max_reopen + 1):
        low, high = _bounds(verdicts, last)
        while untried := [i for i in range(low + 1, high) if i not in skipped]:
            middle = min(untried, key=lambda i: (abs(2 * i - (low + high)), i))  # (low + high) // 2 first
            try:
                verdicts[middle] = classify([middle], False)[0]
            except Unbuildable:
                skipped.add(middle)
                continue
            low, high = _bounds(verdicts, last)
        # The check: the two commits either side of the boundary, measured again in one run. Any
        # wrong step shows up here (a commit wrongly called good leaves a slow parent, one wrongly
        # called bad a fast first_bad), so one wrong step early on is no longer fatal.
        boundary = [i for i in (low, high) if 0 <= i < last]
        checks = classify(boundary, True) if boundary else []
        contradicted = False
        for index, step in zip(boundary, checks):
            if step.bad != verdicts[index].bad and (step.certain or not verdicts[index].certain):
                verdicts[index], contradicted = step, True  # search again between the verdicts that stand
        if not contradicted:
            adjacent = high - low == 1  # no skipped commit between them that could be the first bad one
            return high, adjacent and all(
                step.certain and step.bad == verdicts[index].bad for index, step in zip(boundary, checks)
            )
    return _bounds(verdicts, last)[1], False


def _bounds(verdicts: dict[int, Step], last: int) -> tuple[int, int]:
    """The first commit called bad, and the last one called good before it."""
    high = min([last] + [i for i, step in verdicts.items() if step.bad])
    low = max([-1] + [i for i, step in verdicts.items() if not step.bad and i < high])
    return low, high


@dataclass
class _Distance:
    """One measurement of a commit: how far past the halfway point of good->bad it is, on a log scale."""

    value: float  # log(ratio) - log(regression) / 2: > 0 means bad
    error: float  # its standard error, from the width of the ratio's 95% interval
    regression_seen: bool

    @classmethod
    def of(cls, ratio, halfway: float, regression_seen: bool) -> _Distance:
        width = math.log(ratio.high) - math.log(ratio.low) if ratio.low > 0 and math.isfinite(ratio.high) else math.inf
        return cls(math.log(ratio.value) - halfway, width / (2 * 1.96) or math.inf, regression_seen)


def _pooled_verdict(distances: list[_Distance]) -> tuple[bool, bool]:
    """(bad, certain) from every measurement of one commit, weighted by precision.

    Re-measurements and the final check add evidence instead of replacing it: a commit measured
    three times is decided by all three runs. Runs in which bad was not clearly slower than good
    only count when there is nothing else.
    """
    usable = [d for d in distances if d.regression_seen] or distances
    weights = [(1 / d.error**2, d) for d in usable if math.isfinite(d.error)]
    if not weights:
        return usable[-1].value > 0, False
    total = sum(w for w, _ in weights)
    value = sum(w * d.value for w, d in weights) / total
    return value > 0, any(d.regression_seen for d in usable) and abs(value) > 1.96 / math.sqrt(total)


def _classify(
    commits: list[str],
    subjects: list[str],
    case: str,
    good: str,
    bad: str,
    measure,
    budget: float,
    max_remeasure: int,
    outcome: Outcome,
    check: bool,
    evidence: dict[str, list[_Distance]],
) -> list[Step]:
    """Good or bad for each commit, measured interleaved with good and bad; re-measured while uncertain."""
    budget *= (len(commits) + 2) / 3  # each side timed as long as in a one-commit step
    attempt = 0
    while True:
        result = measure([good, *commits, bad], budget)
        outcome.measurements += 1
        found = {c.contender: c for c in result.comparisons if c.case == case}
        unmeasured = [commit for commit in commits + [bad] if commit not in found]
        failed = any(cell.error for cell in result.cells if cell.case == case)  # not the budget: its code
        if unmeasured and not failed and attempt < max_remeasure:
            attempt, budget = attempt + 1, budget * 2  # the budget ran out before it was timed: a longer one
            continue
        if unmeasured:
            raise BisectError(
                f"commit {unmeasured[0][:12]} could not be measured on case {case!r} "
                f"(--max-time {budget:g} s for this step): " + "; ".join(result.failures or ["no comparison"])
            )
        regression = found[bad].comparison.ratio
        # A run in which bad is not clearly slower than good (a burst of load) decides little:
        # its commits are held to the confirmed regression, and it cannot make a verdict certain.
        regression_seen = found[bad].verdict == SLOWER
        halfway = math.log(regression.value if regression_seen else outcome.confirmed_ratio[0]) / 2
        steps = []
        for commit, subject in zip(commits, subjects):
            ratio = found[commit].comparison.ratio
            evidence.setdefault(commit, []).append(_Distance.of(ratio, halfway, regression_seen))
            is_bad, certain = _pooled_verdict(evidence[commit])
            steps.append(
                Step(
                    commit,
                    subject,
                    ratio.value,
                    ratio.low,
                    ratio.high,
                    regression.value,
                    bad=is_bad,
                    certain=certain,
                    budget=budget,
                    attempts=attempt + 1,
                    check=check,
                    pooled=len(evidence[commit]),
                    equivalence=result.invalid_reason(case, commit),
                )
            )
        if all(step.certain for step in steps) or attempt == max_remeasure:
            return steps
        attempt += 1
        budget *= 2


def _slower(result: RunResult, bad: str) -> list[CaseComparison]:
    return [c for c in result.comparisons if c.contender == bad and c.verdict == SLOWER]


def _regressed_case(
    result: RunResult, bad: str, good: str, measurements: int
) -> tuple[str, tuple[float, float, float]]:
    """The case whose slowdown good->bad is largest among those called slower."""
    slower = _slower(result, bad)
    if not slower:
        found = (
            "; ".join(
                f"{c.case}: {format_ratio_estimate(c.comparison.ratio.value)} ({c.verdict})" for c in result.comparisons
            )
            or "nothing measured"
        )
        raise BisectError(
            f"no statistically supported slowdown from {good} to {bad} in {measurements} "
            f"measurement(s), the last one {found}; nothing to bisect (or raise --max-time)"
        )
    worst = max(slower, key=lambda c: c.comparison.ratio.value)
    ratio = worst.comparison.ratio
    return worst.case, (ratio.value, ratio.low, ratio.high)


def _commits_between(root: Path, good: str, bad: str) -> list[str]:
    """Commits after good up to and including bad, oldest first. Both are resolved to commit hashes
    first, so that no user string reaches git as an option."""
    good_commit, bad_commit = (
        _commit(root, option, revision) for option, revision in (("--good", good), ("--bad", bad))
    )
    if good_commit == bad_commit:
        raise BisectError(f"--good {good} and --bad {bad} are the same commit ({bad_commit[:12]}): nothing to bisect")
    try:
        between = git.commits_between(root, good_commit, bad_commit)
    except git.GitError as error:
        raise BisectError(f"cannot list commits {good}..{bad}: {error}") from None
    if not between:
        raise BisectError(f"{bad} is not a descendant of {good}: no commits to bisect")
    return between


def _commit(root: Path, option: str, revision: str) -> str:
    commit = git.resolve_commit(root, revision)
    if commit is None:
        raise BisectError(f"{option} {revision}: no such revision in {root}")
    return commit
