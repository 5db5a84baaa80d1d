"""perflab compare: is B faster than A, by how much, and does it still do the same thing?

Three kinds of sides, one procedure: contenders of one benchmark file, the same benchmark on git
revisions (each in its own worktree), or under several interpreters. The names of the cases and
contenders come from each side itself (a worker of that revision or interpreter), equivalence is
checked on the declared cases and (between contenders of one file) fuzzed, then the runner times
everything interleaved.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab import git
from perflab.bench.protocol import DescribeEvent, describe_job
from perflab.measure import build_noise, builds, difference_search, metadata
from perflab.measure.budget import Budget
from perflab.measure.launcher import run_job
from perflab.measure.runner import Listener, run_sides
from perflab.measure.settings import Settings
from perflab.measure.sides import Side, contender_sides
from perflab.measure.worktrees import (
    CURRENT,
    Checkout,
    RevisionError,
    benchmark_repository,
    checkouts,
    import_roots,
    revisions_error,
    search_path,
)
from perflab.option_types import FROM_REVISION, matching
from perflab.results.model import RunResult


class CompareError(Exception):
    """The comparison cannot be set up; one line naming what and why."""


class Unbuildable(CompareError):
    """A revision's project does not build (``revision``: which); bisect skips such commits."""

    def __init__(self, message: str, revision: str) -> None:
        super().__init__(message)
        self.revision = revision


class MissingContender(CompareError):
    """The contender to run is not declared on one of the sides (e.g. new since a revision)."""


@dataclass
class Request:
    benchmark: Path
    settings: Settings
    cases: list[str] | None = None
    case_patterns: list[re.Pattern[str]] | None = None  # -b: only the cases these find
    contenders: list[str] | None = None  # contenders mode: these against the reference
    revisions: list[str] | None = None  # revisions mode
    pythons: list[str] | None = None  # interpreters mode
    contender: str | None = None  # the contender run on each revision or interpreter
    fuzz_examples: int = difference_search.DEFAULT_EXAMPLES
    case_limit: int | None = None  # only the first cases declared (perflab demo's budget)
    build: builds.Choice = field(default_factory=builds.Choice)  # revisions mode: which to build, how
    # revisions mode: the benchmark file as it is at each revision, not the given file on each one's code
    from_revision: bool = False
    # Called with the sides, cases and result while the sides still exist (worktrees included),
    # e.g. to profile them for the report.
    after_timing: Callable[[list[Side], list[str], RunResult], None] | None = None


def compare(request: Request, listener: Listener) -> RunResult:
    if request.revisions and request.pythons:
        raise CompareError("compare revisions or interpreters, not both at once (--rev or --python)")
    built: dict[str, builds.Environment] = {}
    with _sides(request, built) as sides:
        # From here (revisions checked out and built) on, every job shares the budget: a file that
        # hangs on import included (perflab.measure.budget).
        budget = Budget.starting_now(request.settings.max_time)
        names = {
            side.name: _describe(side, request.settings, budget.for_checks(), _import_hint(request)) for side in sides
        }
        try:
            cases = matching(_common_cases(request.cases, names), request.case_patterns)[: request.case_limit]
        except ValueError as error:
            raise CompareError(str(error)) from None
        fuzz_started = time.monotonic()
        prior = (
            difference_search.fuzz_sides(sides, request.settings.timeout, request.fuzz_examples, budget.for_fuzzing())
            if _fuzzable(request)
            else []
        )
        fuzz_seconds = time.monotonic() - fuzz_started
        result = run_sides(
            next(iter(names.values()))["name"],
            sides,
            cases,
            request.settings,
            listener,
            prior_equivalence=prior,
            budget=budget,
            compares=all(described["compares"] for described in names.values()),
        )
        result.equivalence_seconds += fuzz_seconds
        if request.revisions:  # the user's file, not a temporary worktree that is gone afterwards
            result.file = str(request.benchmark)
        if built:
            result.metadata["builds"] = {name: environment.to_json() for name, environment in built.items()}
        if request.build.spread and not result.interrupted:
            _measure_build_spread(request, sides[0], built, cases, result)
        if request.after_timing is not None and not result.interrupted:
            request.after_timing(sides, cases, result)
        return result


@contextlib.contextmanager
def _sides(request: Request, built: dict[str, builds.Environment]) -> Iterator[list[Side]]:
    """The sides to measure; each revision built into its environment is added to ``built``."""
    settings, path = request.settings, request.benchmark
    if request.revisions:
        wrong = revisions_error(request.revisions, "--rev")
        if wrong:
            raise CompareError(wrong)
        try:
            with checkouts(path, request.revisions, request.from_revision) as found:
                _say_differing(found, request)
                sides = [_revision_side(revision, checkout, request, built) for revision, checkout in found.items()]
                # The reference is the user's file's (the working tree's side, built if it was, or
                # any side: they all run it); a built revision's when only its environment can
                # import the project.
                probe = next((side for side in sides if side.name == CURRENT), None)
                if probe is None:
                    probe = (
                        sides[-1] if built or not request.from_revision else Side("", str(path), "", settings.python)
                    )
                contender = request.contender or _describe(probe, settings, hint=_import_hint(request))["reference"]
                yield [replace(side, contender=contender) for side in sides]
        except builds.BuildFailed as error:
            raise Unbuildable(str(error), error.revision) from None
        except RevisionError as error:
            raise CompareError(str(error)) from None
    elif request.pythons:
        if len(request.pythons) < 2:
            raise CompareError("--python needs two or more interpreters, e.g. --python python3.11 --python python3.12")
        contender = request.contender or _describe(Side("", str(path), ""), settings)["reference"]
        resolved = [resolve_python(name) for name in request.pythons]
        labels = interpreter_labels(request.pythons, [version for _, version in resolved])
        yield [Side(label, str(path), contender, executable) for label, (executable, _) in zip(labels, resolved)]
    else:
        described = _describe(Side("", str(path), ""), settings)
        chosen = request.contenders or described["contenders"]
        unknown = [c for c in chosen if c not in described["contenders"]]
        if unknown:
            raise CompareError(
                f"{path}: unknown contender {unknown[0]!r} (declared: {', '.join(described['contenders'])})"
            )
        reference = described["reference"]
        ordered = [reference] + [c for c in chosen if c != reference]
        if len(ordered) < 2:
            raise CompareError(f"{path}: nothing to compare: name two contenders, or use --rev or --python")
        yield contender_sides(str(path), ordered, settings.python)


def _say_differing(found: dict[str, Checkout], request: Request) -> None:
    """One line when a revision holds another version of the benchmark file than the one run on it."""
    differing = [revision for revision, checkout in found.items() if checkout.differs]
    if differing and request.build.on_progress is not None:
        request.build.on_progress(
            f"{request.benchmark.name} differs at {', '.join(differing)}: the given file runs on every revision's "
            f"code ({FROM_REVISION} runs each revision's own version, e.g. when the file is the code measured)"
        )


def _revision_side(revision: str, checkout: Checkout, request: Request, built: dict[str, builds.Environment]) -> Side:
    """A revision run from its source (its worktree imported first), or, when its project is built,
    under its environment's python with what was installed there imported first; the benchmark's
    folder after either (search_path)."""
    if not request.build.wanted(checkout.root):
        roots = import_roots(checkout.root)
        return Side(
            revision, str(checkout.benchmark), "", request.settings.python, search_path(roots, checkout.benchmark)
        )
    repository = benchmark_repository(request.benchmark)
    built[revision] = environment = builds.environment(repository, revision, request.settings.python, request.build)
    roots = [str(environment.site_packages)]
    return Side(revision, str(checkout.benchmark), "", environment.python, search_path(roots, checkout.benchmark))


def describe_built(path: Path, settings: Settings, choice: builds.Choice) -> DescribeEvent | None:
    """The benchmark as the working tree's build sees it, when its project is built (perflab's own
    interpreter cannot import a compiled project from its source); None when it runs from source."""
    built = built_working_tree(path, settings, choice)
    return None if built is None else built[0]


def built_working_tree(path: Path, settings: Settings, choice: builds.Choice) -> tuple[DescribeEvent, str] | None:
    """describe_built's benchmark, and the python of the working tree's build it runs under."""
    repository = git.top_level(path)
    if repository is None or not choice.wanted(repository):  # (outside a repository: said by the caller)
        return None
    try:
        built = builds.environment(repository, CURRENT, settings.python, choice)
    except RevisionError as error:  # a build that failed included
        raise CompareError(str(error)) from None
    imports = search_path([str(built.site_packages)], path)
    return _describe(Side(CURRENT, str(path), "", built.python, imports), settings), built.python


def _measure_build_spread(
    request: Request, base: Side, built: dict[str, builds.Environment], cases: list[str], result: RunResult
) -> None:
    """``--build-spread``: the A/A of the base revision's two builds, in the result's metadata."""
    if base.name not in built:
        say = request.build.on_progress or (lambda message: None)
        say(f"{base.name} is not built (its project does not compile; --build builds it): no build spread")
        return
    repository = benchmark_repository(request.benchmark)
    spread = build_noise.measure(repository, base, built[base.name], cases, request.settings, request.build)
    if spread is not None:
        result.metadata["build_spread"] = spread.to_json()


def _describe(side: Side, settings: Settings, budget: Budget | None = None, hint: str = "") -> DescribeEvent:
    """The benchmark as this side sees it; a file that does not load is a one-line error (``hint``:
    what to say after an import that fails)."""
    outcome = run_job(describe_job(side.file, side.sys_path), settings.timeout, side.python, budget=budget)
    if not outcome.ok:
        failed_import = hint and re.search(r"\b(ModuleNotFound|Import)Error while importing\b", outcome.error or "")
        said = [side.name] if side.name else []
        raise CompareError(
            f"{outcome.error}" + (f" ({': '.join(said + [hint] if failed_import else said)})" if said else "")
        )
    described = outcome.of("describe")[0]
    if side.contender and side.contender not in described["contenders"]:
        raise MissingContender(
            f"{side.file}: no contender {side.contender!r} on side {side.name!r} "
            f"(declared: {', '.join(described['contenders'])})"
        )
    return described


def _import_hint(request: Request) -> str:
    """What to do when a revision's code lacks what the given benchmark file imports."""
    if not request.revisions or request.from_revision:
        return ""
    return (
        "the given benchmark file runs on this revision's code: give a revision that has what it imports, "
        f"or {FROM_REVISION} to run each revision's own copy of the file"
    )


def interpreter_labels(pythons: list[str], versions: list[str]) -> list[str]:
    """Each interpreter's side, with its version: "python3.12 (3.12.4)" for /usr/bin/python3.12
    ("python3.11" beside "python" said nothing of what "python" is); the whole path when two
    would otherwise share a label."""
    short = [f"{Path(name).name} ({version})" for name, version in zip(pythons, versions)]
    return (
        short if len(set(short)) == len(short) else [f"{name} ({version})" for name, version in zip(pythons, versions)]
    )


def resolve_python(name: str) -> tuple[str, str]:
    """The real executable behind a name such as python3.12 (pyenv shims resolved), and its version."""
    found = shutil.which(name) or (name if Path(name).is_file() else None)
    if found is None:
        raise CompareError(f"--python {name}: interpreter not found on PATH; install it or give its path")
    try:
        info = metadata.interpreter_info(found)
    except subprocess.CalledProcessError as error:
        said = (error.stderr or "").strip().splitlines()
        raise CompareError(f"--python {name}: {found} does not run" + (f": {said[0]}" if said else "")) from None
    except subprocess.TimeoutExpired as error:
        raise CompareError(
            f"--python {name}: {found} did not answer within {error.timeout:g} s (stopped, with what it started); "
            "give a Python interpreter"
        ) from None
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        raise CompareError(f"--python {name}: {found} does not run ({error})") from None
    if tuple(int(p) for p in info["version"].split(".")[:2]) < (3, 8):
        raise CompareError(f"--python {name}: Python {info['version']} is too old (workers need 3.8+)")
    return info["executable"], info["version"]


def _common_cases(requested: list[str] | None, described: dict[str, DescribeEvent]) -> list[str]:
    case_lists = [d["cases"] for d in described.values()]
    common = [case for case in case_lists[0] if all(case in cases for cases in case_lists[1:])]
    if requested:
        for case in requested:
            missing = [name for name, d in described.items() if case not in d["cases"]]
            if missing:
                raise CompareError(f"case {case!r} is not declared on side {missing[0]!r}")
        return requested
    if not common:
        raise CompareError(
            "the sides have no case in common: "
            + "; ".join(f"{name}: {', '.join(d['cases'])}" for name, d in described.items())
        )
    return common


def _fuzzable(request: Request) -> bool:
    """Fuzzing runs contender against reference in one process: contenders of one file only."""
    return not request.revisions and not request.pythons
