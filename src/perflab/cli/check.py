"""``perflab check``: the CI gate. Measure the code under test against a baseline (a git revision
measured now, paired; or a results file measured before) and fail only on a regression larger
than ``--threshold`` that the data support."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perflab.cli.support.measuring import (
    check_store,
    measure,
    measure_metrics,
    metric_names,
    metric_option,
    save_run,
)
from perflab.cli.support.options import (
    EXIT_BAD_INPUT,
    EXIT_FAILURES,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    add_verb,
    allow_skipped_option,
    bench_option,
    build_choice,
    build_options,
    case_option,
    check_outputs,
    contender_option,
    db_path,
    output_option,
    resolve_benchmark,
    say,
    select,
    select_matching,
    store_errors_are_bad_input,
    store_options,
    threshold_option,
    timing_options,
    timing_settings,
    write_if_asked,
    write_outputs,
)
from perflab.option_types import FROM_WORKTREE, percentage, whole_number

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from perflab.analysis import gate
    from perflab.analysis.detectable import Qualification
    from perflab.bench.spec import Benchmark
    from perflab.github import PullRequest
    from perflab.measure.affected import Selection
    from perflab.measure.builds import Choice as BuildChoice
    from perflab.measure.settings import Settings
    from perflab.results.model import RunResult


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "check",
        "CI gate: run the benchmark and fail only on a regression larger than --threshold against a baseline",
        'perflab check bench.py --against main >> "$GITHUB_STEP_SUMMARY"',
        "perflab check bench.py --against main --metric instructions --instructions-threshold 0.2",
        "perflab check bench.py --against main --metric memory --memory-threshold 2",
        "perflab check bench.py --against baseline.json --threshold 3",
    )
    parser.add_argument(
        "benchmark", help="a benchmark file, an asv suite (its benchmark directory or asv.conf.json), or a built-in"
    )
    parser.add_argument(
        "--against",
        metavar="REF_OR_FILE",
        help="a git branch/tag/commit, measured now in a worktree interleaved with the working "
        "tree (paired); or a perflab results JSON file measured before (unpaired); default: --affected's revision",
    )
    parser.add_argument(
        "--affected",
        nargs="?",
        const="",
        metavar="REV",
        help="run only the cells whose operation reaches a function changed since REV (default: --against's "
        "revision), the rest listed as skipped; anything it cannot map (a changed C or config file, the "
        "benchmark itself) runs everything",
    )
    threshold_option(parser)
    parser.add_argument(
        FROM_WORKTREE,
        action="store_true",
        help="with --against REV: run the given benchmark file on REV's code too (as compare --rev does, for a "
        "benchmark that imports the project), instead of the file as it is at REV",
    )
    case_option(parser, "default: all")
    bench_option(parser)
    contender_option(parser, "default: all")
    output_option(parser, "--json", "perflab.check/1: each ratio to the baseline with its interval and verdict")
    output_option(parser, "--markdown", "the summary check prints")
    output_option(parser, "--html", "the summary check prints, as a page")
    parser.add_argument(
        "--comment",
        choices=["github"],
        help="also post the summary as the pull request's perflab comment, one per benchmark, updated on "
        "every push (GITHUB_TOKEN, GITHUB_REPOSITORY and the pull request of GITHUB_EVENT_PATH, as Actions sets them)",
    )
    parser.add_argument(
        "--pr",
        type=whole_number(1, 10**12),
        metavar="NUMBER",
        help="with --comment github: the pull request (default: the one of the workflow's event)",
    )
    parser.add_argument(
        "--confirm",
        type=whole_number(0, 100),
        default=1,
        metavar="N",
        help="re-measure a regression N times before failing; each must show it (default 1)",
    )
    metric_option(parser)
    parser.add_argument(
        "--instructions-threshold",
        type=percentage,
        default=0.005,
        metavar="PCT",
        help="with --metric instructions: smallest increase in instructions per call, beyond "
        "the counts' spread, that fails the check (default 0.5%%)",
    )
    build_options(parser)
    parser.add_argument(
        "--memory-threshold",
        type=percentage,
        default=0.01,
        metavar="PCT",
        help="with --metric memory: smallest increase in bytes allocated per call or in the peak, beyond "
        "the processes' spread (and 64 bytes), that fails the check (default 1%%)",
    )
    timing_options(parser)
    allow_skipped_option(parser)
    store_options(parser)
    parser.set_defaults(handler=store_errors_are_bad_input(run))


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab import metrics
    from perflab.analysis import gate
    from perflab.bench.loading import load_benchmark
    from perflab.render import markdown
    from perflab.results.store import CHECK_SOURCE
    from perflab.results.warnings import run_warnings

    _affected_revision(args)  # before anything: a bad combination is a one-line error
    path = resolve_benchmark(args.benchmark)
    build = build_choice(args, err)
    # Bad input is found before anything is measured, and before the working tree is built (hours,
    # for a large compiled project).
    wanted_metrics = metric_names(args.metric)
    counting = metrics.INSTRUCTIONS in wanted_metrics
    weighing = metrics.MEMORY in wanted_metrics
    check_outputs(
        args,
        "--markdown",
        "--json",
        "--html",
        inputs=(path, args.against if Path(args.against).is_file() else None, check_store(args, path)),
    )
    pull_request = _pull_request(args)
    if not Path(args.against).is_file():
        _revision_commit(args, path)
    benchmark = _described_in_build(path, args, build) or load_benchmark(path)
    for note in benchmark.notes:
        say(err, f"perflab check: {note}")
    baseline = _baseline(args, path, benchmark.name, wanted_metrics, build)
    chosen = select(args.case, benchmark.cases, "case", str(path)) if args.case or args.bench else None
    cases = select_matching(chosen, args.bench, str(path)) if chosen is not None else None
    contenders = select(args.contender, benchmark.contenders, "contender", str(path))
    target = _Target(path, benchmark, args, err)
    if args.affected is not None:
        assert isinstance(baseline, _RevisionBaseline)  # (_affected_revision refuses a results file)
        target.selection = _select_affected(target, baseline, cases or list(benchmark.cases), contenders)
        cases = [case for case in cases or benchmark.cases if any(case in run for run in target.selection.run.values())]
        contenders = [contender for contender in contenders if target.selection.run.get(contender)]
    checked, stored, failed, first_runs = None, True, False, []
    runs: list[RunResult] = []
    # Re-measure what looks regressed before failing; nothing at all when --affected left nothing to run.
    for attempt in range(args.confirm + 1 if contenders else 0):
        if checked is not None:
            cases = list(dict.fromkeys(cell.case for cell in checked.regressions))
            contenders = list(dict.fromkeys(cell.contender for cell in checked.regressions))
            err.print(
                f"possible regression in {', '.join(cases)}: measuring again to confirm ({attempt}/{args.confirm})",
                markup=False,
            )
        # Other metrics are measured once: instruction counts and memory do not change when measured again.
        runs, again = baseline.measure(target, cases, contenders, wanted_metrics if attempt == 0 else [])
        if any(measured.interrupted for measured in runs):
            return EXIT_INTERRUPTED
        for measured in runs:
            stored = bool(save_run(measured, path, args, err, source=CHECK_SOURCE)) and stored
        failed = failed or any(baseline.problems(measured) or _metric_errors(measured) for measured in runs)
        skips = [] if args.allow_skipped else [line for measured in runs for line in measured.skips]
        if skips:
            say(err, "perflab check: " + "; ".join(skips) + " (pass --allow-skipped if that is expected)")
            failed = True
        if attempt == 0:  # the runs whose instructions were counted and memory measured
            first_runs = runs
        if checked is not None:
            again = gate.confirm(checked, again)
            again.notes.append(
                f"what looked like a regression was measured again ({attempt} time(s)); "
                "a regression counts only if every measurement shows it"
            )
        checked = again
        if not checked.regressions:
            break
    if checked is None:  # nothing measured: the change touched no cell
        checked = gate.CheckResult(args.threshold, args.alpha, paired=True)
    if target.selection is not None:
        checked.selection = target.selection.summary(args.affected)
        checked.skipped = [gate.SkippedCell(*cell) for cell in target.selection.skipped]
    if checked.paired:
        checked.qualification = qualified = _qualification(args, path, benchmark.name, runs)
        threshold = args.threshold if qualified is None or qualified.threshold is None else qualified.threshold
        if qualified and (qualified.max_time, qualified.alpha, qualified.min_effect, threshold) != (
            args.max_time,
            args.alpha,
            args.min_effect,
            args.threshold,
        ):
            checked.notes.append(
                f"this runner was qualified at --max-time {qualified.max_time:g} --alpha {qualified.alpha:.2%} "
                f"--min-effect {qualified.min_effect:.2%} --threshold {threshold:.2%}, not this check's: "
                "what it detects is said for those"
            )
    if counting:
        gate.check_instructions(
            checked, baseline.pairs(first_runs, metrics.instruction_counts), args.instructions_threshold
        )
    if weighing:
        gate.check_memory(checked, baseline.pairs(first_runs, metrics.memory_figures), args.memory_threshold)
    checked.warnings = list(dict.fromkeys(w.text for measured in first_runs + runs for w in run_warnings(measured)))
    current = baseline.current(runs)
    summary = markdown.render_check(checked, benchmark.name, baseline.description, current)
    sys.stdout.write(summary)
    outcome = checked.to_json(benchmark.name, baseline.description, current)
    failed_outputs = write_outputs(
        {
            "--markdown": lambda: write_if_asked(args.markdown, lambda: summary, "summary", err),
            "--json": lambda: write_if_asked(args.json, lambda: json.dumps(outcome, indent=1) + "\n", "outcome", err),
            "--html": lambda: write_if_asked(
                args.html,
                lambda: _html_summary(checked, benchmark.name, baseline.plain, current),
                "summary",
                err,
            ),
        }
    )
    for problem in failed_outputs.values():  # the runs are stored already
        say(err, f"perflab: error: {problem}")
    if failed_outputs:
        return EXIT_BAD_INPUT
    if not checked.cells and not checked.skipped:
        raise UsageError(
            f"{args.against}: no (case, contender) in common with this run of {benchmark.name}; nothing to compare"
        )
    if pull_request is not None:
        _comment(pull_request, checked, benchmark.name, baseline.description, baseline.current(runs), err)
    if checked.regressions or checked.instruction_regressions or checked.memory_regressions or failed:
        return EXIT_FAILURES
    return EXIT_OK if stored else EXIT_BAD_INPUT


@dataclass(frozen=True)
class _Described:
    """A benchmark as a worker in the working tree's build described it: its names only."""

    name: str
    cases: list[str]
    contenders: list[str]
    notes: tuple[str, ...] = ()


def _html_summary(checked: gate.CheckResult, name: str, baseline: str, current: str) -> str:
    """--html's page; its renderer (jinja2) is imported for that option only."""
    from perflab.render.html import gate_pages

    return gate_pages.render_check(checked, name, baseline, current)


def _described_in_build(path: Path, args: argparse.Namespace, build: BuildChoice) -> _Described | None:
    """Against a revision of a project that is built, the benchmark as its built working tree sees
    it (perflab's interpreter cannot import the compiled project); None: loaded here, as usual."""
    from perflab.measure import ab_test

    if Path(args.against).is_file():
        return None
    try:
        described = ab_test.describe_built(path, timing_settings(args), build)
    except ab_test.CompareError as error:
        raise UsageError(str(error)) from None
    return None if described is None else _Described(described["name"], described["cases"], described["contenders"])


def _affected_revision(args: argparse.Namespace) -> None:
    """--affected's revision (given, or --against's); --against defaults to it."""
    if args.affected is None:
        if args.against is None:
            raise UsageError("--against REF_OR_FILE is required (or --affected REV): what to check against")
        return
    if not args.affected:
        if args.against is None:
            raise UsageError("--affected needs a revision: --affected REV, or --against REV --affected")
        args.affected = args.against
    elif args.against is None:
        args.against = args.affected
    elif args.against != args.affected:
        raise UsageError(
            f"--against {args.against} --affected {args.affected}: the change is measured against the revision "
            "it is taken from; give one of them, or --affected alone after --against"
        )
    if Path(args.against).is_file():
        raise UsageError(f"--affected {args.against}: a results file has no code to compare with; give a git revision")


def _select_affected(
    target: _Target, baseline: _RevisionBaseline, cases: list[str], contenders: list[str]
) -> Selection:
    """The cells the change since --affected's revision can affect (traced in workers on both sides)."""
    from perflab.git import GitError
    from perflab.measure import affected
    from perflab.measure.worktrees import RevisionError

    target.err.print(f"tracing what each cell runs, at {target.args.affected} and now ...", markup=False)
    try:
        selection = affected.select(
            target.path, baseline.revision, baseline.commit, cases, contenders, timing_settings(target.args)
        )
    except (RevisionError, GitError) as error:
        raise UsageError(f"--affected {target.args.affected}: {error}") from None
    say(target.err, f"perflab check: {selection.summary(target.args.affected)}")
    return selection


def _pull_request(args: argparse.Namespace) -> PullRequest | None:
    """Where ``--comment github`` posts; None without it."""
    from perflab.github import GitHubError, PullRequest

    if args.pr is not None and args.comment is None:
        raise UsageError("--pr is for --comment github; add --comment github")
    if args.comment is None:
        return None
    try:
        return PullRequest.from_environment(args.pr)
    except GitHubError as error:
        raise UsageError(str(error)) from None


def _comment(
    pull_request: PullRequest, checked: gate.CheckResult, name: str, baseline: str, current: str, err: Console
) -> None:
    """The pull request's comment for this benchmark, created or updated, linking to this workflow run."""
    from rich.markup import escape

    from perflab.github import GitHubError
    from perflab.render import markdown

    links = {}
    server, run_id = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_RUN_ID")
    if server and run_id:
        links["this workflow run: its summary and artifacts"] = (
            f"{server}/{pull_request.repository}/actions/runs/{run_id}"
        )
    body = markdown.render_comment(checked, name, baseline, current, links)
    try:
        url = pull_request.upsert_comment(markdown.comment_marker(name), body)
    except GitHubError as error:  # (the runs are stored and the summary written already)
        raise UsageError(str(error)) from None
    err.print(f"[dim]pull request comment: {escape(url)}[/]")


def _qualification(args: argparse.Namespace, path: Path, name: str, runs: list[RunResult]) -> Qualification | None:
    """What ``perflab qualify`` stored for this benchmark on this machine, if it did."""
    from perflab.results.store import Store, StoreError

    if not runs:
        return None
    try:  # (a store that cannot be used was reported when the runs were saved)
        with Store.open(db_path(args, path), create=False) as store:
            return store.qualification(name, runs[0].metadata.get("machine") or {})
    except StoreError:
        return None


def _metric_errors(run: RunResult) -> list[str]:
    from perflab import metrics

    measured = metrics.stored(run)
    return measured.errors if measured else []


@dataclass
class _Target:
    """What every attempt measures, whichever the baseline: the benchmark, and the command's options."""

    path: Path
    benchmark: Benchmark | _Described
    args: argparse.Namespace
    err: Console
    selection: Selection | None = None  # --affected: the cells to run, per contender

    def cases_for(self, contender: str, cases: list[str] | None) -> list[str] | None:
        """Of ``cases`` (None: all), those ``contender`` runs."""
        return cases if self.selection is None else self.selection.cases(contender, cases)


class _ResultsFileBaseline:
    """``--against FILE``: a run measured before; only the code under test is measured now."""

    def __init__(self, result: RunResult, file: Path) -> None:
        from perflab.render.markdown import code

        self.result, self.plain = result, str(file)  # plain: for HTML; description: Markdown
        self.description = code(self.plain)

    def measure(
        self, target: _Target, cases: list[str] | None, contenders: list[str], wanted_metrics: list[str]
    ) -> tuple[list[RunResult], gate.CheckResult]:
        from perflab.analysis import gate

        settings = timing_settings(target.args)
        assert not isinstance(target.benchmark, _Described)  # (described in a build against a revision only)
        run = measure(
            target.path, target.benchmark, cases or list(target.benchmark.cases), contenders, settings, target.err
        )
        measure_metrics(run, wanted_metrics, settings, target.err)
        return [run], gate.check(self.result, run, target.args.threshold, settings.alpha, settings.min_effect)

    def pairs(self, runs: list[RunResult], read: Callable[[RunResult], dict[tuple[str, str], Any]]) -> list[tuple]:
        """(case, contender, baseline figure, current figure) for cells ``read`` finds in both
        (perflab.metrics.instruction_counts or memory_figures)."""
        before, after = read(self.result), read(runs[0])
        return [(*key, before[key], after[key]) for key in after if key in before]

    @staticmethod
    def problems(run: RunResult) -> list[str]:
        return run.failures

    @staticmethod
    def current(runs: list[RunResult]) -> str:
        git = runs[0].metadata.get("git") or {}
        return f"{(git.get('commit') or 'working tree')[:8]}{'+' if git.get('dirty') else ''} (this run)"


class _RevisionBaseline:
    """``--against REF``: the revision is checked out and measured now, interleaved with the working
    tree (one paired run per contender, as ``perflab compare --rev REF --rev WORKTREE``)."""

    def __init__(self, revision: str, commit: str, build: BuildChoice) -> None:
        self.revision, self.commit, self.build = revision, commit, build
        from perflab.render.markdown import code

        detail = f" at {commit[:8]}, measured now in a worktree, interleaved"
        self.plain, self.description = revision + detail, code(revision) + detail

    def measure(
        self, target: _Target, cases: list[str] | None, contenders: list[str], wanted_metrics: list[str]
    ) -> tuple[list[RunResult], gate.CheckResult]:
        from perflab.analysis import gate
        from perflab.measure import ab_test
        from perflab.measure.worktrees import CURRENT
        from perflab.render.terminal.progress import LiveProgress

        settings = timing_settings(target.args)
        settings.regression_threshold = target.args.threshold  # the rounds may stop once that is answered
        runs, missing = [], []
        for contender in contenders:
            request = ab_test.Request(
                target.path,
                settings,
                cases=target.cases_for(contender, cases),
                revisions=[self.revision, CURRENT],
                contender=contender,
                fuzz_examples=0,
                build=self.build,
                # The file as it is at the revision: what was declared there is the baseline, and what
                # is new since is said so ("not declared at REV"), not run on code that lacks it;
                # with --benchmark-from-worktree, the given file on the revision's code.
                from_revision=not target.args.benchmark_from_worktree,
            )
            # Counted while the revision's worktree still exists.
            request.after_timing = functools.partial(_count_while_checked_out, wanted_metrics, settings, target.err)
            try:
                with LiveProgress(target.err, settings.max_time, settings.precision) as progress:
                    runs.append(ab_test.compare(request, progress))
            except ab_test.MissingContender:
                missing.append(contender)
            except ab_test.CompareError as error:
                raise UsageError(str(error)) from None
            if runs and runs[-1].interrupted:
                break
        checked = gate.check_paired(runs, target.args.threshold, settings.alpha, settings.min_effect)
        measured_cases = {cell.case for run in runs for cell in run.cells}
        checked.not_compared += [
            f"{case}/*"
            for case in target.benchmark.cases
            if case not in measured_cases and (cases is None or case in cases)
        ]
        checked.not_compared += [f"*/{contender}" for contender in missing]
        if missing or len(measured_cases) < len(cases or target.benchmark.cases):
            checked.notes.append(f"cases and contenders marked * are not declared at {self.revision}")
        return runs, checked

    @staticmethod
    def pairs(runs: list[RunResult], read: Callable[[RunResult], dict[tuple[str, str], Any]]) -> list[tuple]:
        """(case, contender, figure at the revision, figure now) for cells ``read`` finds on both
        sides (perflab.metrics.instruction_counts or memory_figures)."""
        found = []
        for run in runs:
            counts = read(run)
            found += [
                (
                    cell.case,
                    run.sides[cell.contender]["contender"],
                    counts[(cell.case, run.reference)],
                    counts[(cell.case, cell.contender)],
                )
                for cell in run.cells
                if cell.contender != run.reference
                and (cell.case, cell.contender) in counts
                and (cell.case, run.reference) in counts
            ]
        return found

    @staticmethod
    def problems(run: RunResult) -> list[str]:
        """A contender that fails; output that differs from the baseline is a note, not a failure
        (a pull request may change it on purpose)."""
        return [f"{cell.case}/{cell.contender}: {cell.error}" for cell in run.cells if cell.error]

    @staticmethod
    def current(runs: list[RunResult]) -> str:
        from perflab.measure.worktrees import CURRENT

        git = ((runs[0].metadata.get("sides") or {}).get(CURRENT) or {}).get("git") or {} if runs else {}
        return f"working tree at {(git.get('commit') or '?')[:8]}{'+' if git.get('dirty') else ''} (measured now)"


def _count_while_checked_out(
    wanted_metrics: list[str], settings: Settings, err: Console, sides: list, cases: list[str], run: RunResult
) -> None:
    """The compare hook that counts the metrics while the revision's worktree still exists."""
    measure_metrics(run, wanted_metrics, settings, err)


def _baseline(
    args: argparse.Namespace, path: Path, name: str, wanted_metrics: list[str], build: BuildChoice
) -> _ResultsFileBaseline | _RevisionBaseline:
    """A results file, else a git revision of the benchmark's repository."""
    from perflab import metrics

    against = Path(args.against)
    if against.is_file():
        from perflab.results.files import load_file  # with pyperf's reader: for a results file only

        if args.build or args.build_command or args.build_spread:
            raise UsageError(
                f"--against {against} is a results file: --build, --build-command and --build-spread build revisions"
            )
        result = load_file(against, benchmark=name)  # (the name is used for pyperf files only)
        if result.benchmark != name:
            raise UsageError(f"{against}: holds benchmark {result.benchmark!r}, not {name!r}")
        for metric, read, what in (
            (metrics.INSTRUCTIONS, metrics.instruction_counts, "instruction counts"),
            (metrics.MEMORY, metrics.memory_figures, "bytes allocated per call (memray)"),
        ):
            if metric in wanted_metrics and not read(result):
                raise UsageError(
                    f"{against}: has no {what} to compare with; measure the "
                    f"baseline with `perflab run --metric {metric} --json FILE`"
                )
        return _ResultsFileBaseline(result, against)
    if args.benchmark_from_worktree and args.affected:
        raise UsageError(f"{FROM_WORKTREE} and --affected: --affected traces the file at its revision; give one")
    commit = _revision_commit(args, path)
    if not args.benchmark_from_worktree:
        _benchmark_at(path, args.benchmark, args.against, commit)
    return _RevisionBaseline(args.against, commit, build)


def _benchmark_at(path: Path, given: str, revision: str, commit: str) -> None:
    """The baseline's benchmark file (``given`` as the user typed it) must exist at the revision
    (an untracked one does not)."""
    from perflab import git

    root = git.top_level(path)
    if root is None or path.is_dir():
        return
    try:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        relative = None
    if relative is None or git.file_at(root, commit, relative) is None:
        raise UsageError(
            f"--against {revision}: {given} does not exist at {revision}, where check reads the baseline's "
            f"benchmark; give {FROM_WORKTREE} to run this file on {revision}'s code"
        )


def _revision_commit(args: argparse.Namespace, path: Path) -> str:
    """The commit --against (or --affected) names in the benchmark's repository."""
    from perflab.git import resolve_ref

    commit = resolve_ref(path, args.against)
    if commit is None:
        said = "--affected" if args.affected else "--against"  # the option the user gave the revision with
        nor_file = "" if args.affected else " no such results file, and"
        raise UsageError(f"{said} {args.against}:{nor_file} not a git revision of the repository holding {path}")
    return commit
