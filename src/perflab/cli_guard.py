"""The regression guard's command-line verbs: history, check, import, export; and storing runs.

Kept apart from cli.py (which defines the measuring verbs and the shared options) so that each
file holds one concern; the verbs are registered on cli's parser by ``add_verbs``.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from rich.console import Console

from perflab import cli
# The store needs only the standard library; everything that imports scipy (results, stats,
# change points) is imported by the verbs that use it, so that `perflab --help` stays fast.
from perflab.store import Store, StoreError, default_path, resolve_ref

if TYPE_CHECKING:
    from perflab import gate
    from perflab.results import RunResult


def store_options(parser: argparse.ArgumentParser, saves: bool = True) -> None:
    parser.add_argument("--db", metavar="PATH",
                        help="results database (default: $PERFLAB_DB, else .perflab/perflab.db at the git "
                             "top level of the benchmark file, else in the current directory)")
    if saves:
        parser.add_argument("--no-store", action="store_true", help="do not save this run in the database")


def add_verbs(verbs) -> None:
    history = cli._verb(verbs, "history", "a benchmark's times over commits, with 95%% CIs and change points",
                        "perflab history json_dumps", "perflab history bench.py --case SMALL --any-machine")
    history.add_argument("benchmark", help="a stored benchmark's name, or its file")
    history.add_argument("--case", metavar="NAME", help="only this case (default: every case)")
    history.add_argument("--contender", metavar="NAME", help="this contender (default: the reference)")
    history.add_argument("--any-machine", action="store_true", help="include runs from other machines")
    history.add_argument("--any-python", action="store_true", help="include runs from other interpreters")
    history.add_argument("--metric", choices=("time", "instructions"), default="time",
                         help="time per call (default), or instructions per call from the runs measured with "
                              "--metric instructions")
    store_options(history, saves=False)
    history.set_defaults(handler=_guarded(_history))

    check = cli._verb(verbs, "check", "CI gate: run the benchmark and fail only on a regression larger "
                                      "than --threshold against a baseline",
                      "perflab check bench.py --against main >> \"$GITHUB_STEP_SUMMARY\"",
                      "perflab check bench.py --against main --metric instructions --instructions-threshold 0.2",
                      "perflab check bench.py --against baseline.json --threshold 3")
    check.add_argument("benchmark", help="a benchmark file, or the name of a built-in")
    check.add_argument("--against", required=True, metavar="REF_OR_FILE",
                       help="a git branch/tag/commit, measured now in a worktree interleaved with the working "
                            "tree (paired); or a perflab results JSON file measured before (unpaired)")
    check.add_argument("--threshold", type=cli._percentage, default=0.05, metavar="PCT",
                       help="smallest slowdown that fails the check (default 5%%)")
    check.add_argument("--case", action="append", metavar="NAME", help="only these cases")
    check.add_argument("--contender", action="append", metavar="NAME", help="only these contenders")
    check.add_argument("--markdown", metavar="FILE", help="also write the Markdown summary to FILE")
    check.add_argument("--confirm", type=_count, default=1, metavar="N",
                       help="re-measure a regression N times before failing; each must show it (default 1)")
    cli._metric_option(check)
    check.add_argument("--instructions-threshold", type=cli._percentage, default=0.005, metavar="PCT",
                       help="with --metric instructions: smallest increase in instructions per call, beyond "
                            "the counts' spread, that fails the check (default 0.5%%)")
    cli._timing_options(check)
    store_options(check)
    check.set_defaults(handler=_guarded(_check))

    importing = cli._verb(verbs, "import", "load perflab results files or pyperf JSON files into the database",
                          "perflab import results.json", "perflab import pyperf-out/orjson.json --benchmark json_dumps")
    importing.add_argument("files", nargs="+", metavar="FILE")
    importing.add_argument("--benchmark", metavar="NAME", help="benchmark name for pyperf files (default: file name)")
    importing.add_argument("--contender", metavar="NAME", help="contender name for pyperf files (default: file name)")
    store_options(importing, saves=False)
    importing.set_defaults(handler=_guarded(_import))

    export = cli._verb(verbs, "export", "write stored runs out as perflab results files or pyperf JSON",
                       "perflab export out/", "perflab export out/ --benchmark json_dumps --pyperf")
    export.add_argument("directory", metavar="DIR")
    export.add_argument("--benchmark", metavar="NAME", help="only runs of this benchmark")
    export.add_argument("--run", type=int, action="append", metavar="ID", help="only these run ids")
    export.add_argument("--pyperf", action="store_true", help="pyperf JSON (one folder per run) instead of perflab's")
    store_options(export, saves=False)
    export.set_defaults(handler=_guarded(_export))


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (0 or more)")
    return int(text)


def _guarded(handler: Callable[[argparse.Namespace, Console], int]) -> Callable[[argparse.Namespace, Console], int]:
    """Database and file problems are bad input: one line, exit code 2."""
    @functools.wraps(handler)
    def run(args: argparse.Namespace, err: Console) -> int:
        from perflab.history import HistoryError
        from perflab.interchange import InterchangeError
        try:
            return handler(args, err)
        except (StoreError, HistoryError, InterchangeError) as error:
            raise cli.UsageError(str(error)) from None
    return run


def _db_path(args: argparse.Namespace, benchmark_file: str | Path | None) -> Path:
    return Path(args.db) if args.db else default_path(benchmark_file)


@dataclass(frozen=True)
class Saved:
    """What became of a run: where it was stored (``run_id`` in the database at ``path``; None when
    not stored, as with --no-store). False as a truth value only when the database refused it."""
    refused: bool = False
    run_id: int | None = None
    path: Path | None = None
    run_ids: tuple[int, ...] = ()     # every run stored (one per side of a comparison of revisions)

    def __bool__(self) -> bool:
        return not self.refused


def save_run(result: RunResult, benchmark_file: Path, args: argparse.Namespace, err: Console,
             source: str = "run") -> Saved:
    """Keep the run in the database (unless --no-store). False if the database refused it; the run
    is then written to a JSON file so that nothing measured is lost."""
    if args.no_store:
        return Saved()
    if result.interrupted:
        err.print("[dim]interrupted run not stored (the history holds complete runs only)[/]")
        return Saved()
    path = _db_path(args, benchmark_file)
    try:
        with Store.open(path) as store:   # a comparison of revisions: one run per revision
            run_ids = [store.save(run, source) for run in result.per_side(str(benchmark_file))]
    except StoreError as error:
        kept = Path(args.json) if getattr(args, "json", None) else Path(
            f"perflab-unsaved-{time.strftime('%Y%m%d-%H%M%S')}.json")
        if not kept.exists():
            result.save(kept)
        err.print(f"perflab: error: {error}; this run is kept in {kept} (`perflab import {kept}` later)",
                  markup=False, soft_wrap=True)
        return Saved(refused=True)
    err.print(f"[dim]stored as run{'s' * (len(run_ids) > 1)} {', '.join(map(str, run_ids))} in {path}[/]")
    return Saved(run_id=run_ids[0] if len(run_ids) == 1 else None, path=path, run_ids=tuple(run_ids))


def _history(args: argparse.Namespace, err: Console) -> int:
    from perflab import changepoints, history
    from perflab.renderers import history_terminal, terminal
    name, file = _benchmark_name(args.benchmark)
    out = terminal.stdout_console()
    with Store.open(_db_path(args, file), create=False) as store:   # open while rendering: profiles load per step
        for series in history.series(store, name, args.case, args.contender, args.any_machine, args.any_python,
                                     args.metric):
            notes = []
            if series.hidden:
                notes.append(f"{series.hidden} run(s) on other machines or interpreters not shown "
                             "(--any-machine / --any-python to include them)")
            changes = changepoints.detect(series.points, min_step=series.min_step)
            timed = series.metric == history.TIME   # profiles show where time went, at time steps
            history_terminal.render(out, f"{name} / {series.case} / {series.contender} — {len(series.points)} "
                                    f"run(s) on {series.description}", series.points, series.dates,
                                    changes, notes, history.step_profiles(store, series, changes) if timed else None,
                                    scale=history_terminal.TIME if timed else history_terminal.INSTRUCTIONS)
    return cli.EXIT_OK


def _benchmark_name(text: str) -> tuple[str, Path | None]:
    """A benchmark file (or built-in) gives its declared name; anything else is a stored name."""
    try:
        path = cli.resolve_benchmark(text)
    except cli.UsageError:
        return text, None
    return cli.load_benchmark(path).name, path


def _check(args: argparse.Namespace, err: Console) -> int:
    from perflab import gate, metrics
    from perflab.renderers import markdown
    path = cli.resolve_benchmark(args.benchmark)
    benchmark = cli.load_benchmark(path)
    metric_names = cli._metric_names(args.metric)       # before measuring: fail fast
    counting = metrics.INSTRUCTIONS in metric_names
    baseline = _baseline(args, path, benchmark.name, counting)
    cases = cli._select(args.case, benchmark.cases, "case", str(path)) if args.case else None
    contenders = cli._select(args.contender, benchmark.contenders, "contender", str(path))
    checked, stored, failed, first_runs = None, True, False, []
    for attempt in range(args.confirm + 1):   # re-measure what looks regressed before failing
        if checked is not None:
            cases = list(dict.fromkeys(cell.case for cell in checked.regressions))
            contenders = list(dict.fromkeys(cell.contender for cell in checked.regressions))
            err.print(f"possible regression in {', '.join(cases)}: measuring again to confirm "
                      f"({attempt}/{args.confirm})", markup=False)
        # Other metrics are measured once: instruction counts do not change when measured again.
        runs, again = baseline.measure(path, benchmark, cases, contenders, args, err,
                                       metric_names if attempt == 0 else [])
        if any(run.interrupted for run in runs):
            return cli.EXIT_INTERRUPTED
        for run in runs:
            stored = save_run(run, path, args, err, source="check") and stored
        failed = failed or any(baseline.problems(run) or _metric_errors(run) for run in runs)
        if attempt == 0:   # the runs whose instructions were counted
            first_runs = runs
        if checked is not None:
            again = gate.confirm(checked, again)
            again.notes.append(f"what looked like a regression was measured again ({attempt} time(s)); "
                               "a regression counts only if every measurement shows it")
        checked = again
        if not checked.regressions:
            break
    if counting:
        gate.check_instructions(checked, baseline.instruction_counts(first_runs), args.instructions_threshold)
    summary = markdown.render_check(checked, benchmark.name, baseline.description, baseline.current(runs))
    sys.stdout.write(summary)
    if args.markdown:
        Path(args.markdown).write_text(summary)
    if not checked.cells:
        raise cli.UsageError(f"{args.against}: no (case, contender) in common with this run of "
                             f"{benchmark.name}; nothing to compare")
    if checked.regressions or checked.instruction_regressions or failed:
        return cli.EXIT_FAILURES
    return cli.EXIT_OK if stored else cli.EXIT_BAD_INPUT


def _metric_errors(run: RunResult) -> list[str]:
    from perflab import metrics
    measured = metrics.stored(run)
    return measured.errors if measured else []


class _ResultsFileBaseline:
    """``--against FILE``: a run measured before; only the code under test is measured now."""

    def __init__(self, result: RunResult, file: Path) -> None:
        self.result, self.description = result, f"`{file}`"

    def measure(self, path: Path, benchmark, cases: list[str] | None, contenders: list[str],
                args: argparse.Namespace, err: Console, metric_names: list[str]
                ) -> tuple[list[RunResult], gate.CheckResult]:
        from perflab import gate
        settings = cli._settings(args)
        run = cli._measure(path, benchmark, cases or list(benchmark.cases), contenders, args, err)
        cli._other_metrics(run, metric_names, args, err)
        return [run], gate.check(self.result, run, args.threshold, settings.alpha, settings.min_effect)

    def instruction_counts(self, runs: list[RunResult]) -> list[tuple]:
        """(case, contender, baseline count, current count) for cells counted in both."""
        from perflab.metrics import instruction_counts
        before, after = instruction_counts(self.result), instruction_counts(runs[0])
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

    def __init__(self, revision: str, commit: str) -> None:
        self.revision = revision
        self.description = f"`{revision}` at {commit[:8]}, measured now in a worktree, interleaved"

    def measure(self, path: Path, benchmark, cases: list[str] | None, contenders: list[str],
                args: argparse.Namespace, err: Console, metric_names: list[str]
                ) -> tuple[list[RunResult], gate.CheckResult]:
        from perflab import compare, gate
        from perflab.progress import LiveProgress
        from perflab.worktrees import CURRENT
        settings = cli._settings(args)
        runs, missing = [], []
        for contender in contenders:
            request = compare.Request(path, settings, cases=cases, revisions=[self.revision, CURRENT],
                                      contender=contender, fuzz_examples=0)
            # Counted while the revision's worktree still exists.
            request.after_timing = lambda sides, measured_cases, run: cli._other_metrics(run, metric_names, args, err)
            try:
                with LiveProgress(err, settings.max_time, settings.precision) as progress:
                    runs.append(compare.compare(request, progress))
            except compare.MissingContender:
                missing.append(contender)
            except compare.CompareError as error:
                raise cli.UsageError(str(error)) from None
            if runs and runs[-1].interrupted:
                break
        checked = gate.check_paired(runs, args.threshold, settings.alpha, settings.min_effect)
        measured_cases = {cell.case for run in runs for cell in run.cells}
        checked.not_compared += [f"{case}/*" for case in benchmark.cases
                                 if case not in measured_cases and (cases is None or case in cases)]
        checked.not_compared += [f"*/{contender}" for contender in missing]
        if missing or len(measured_cases) < len(cases or benchmark.cases):
            checked.notes.append(f"cases and contenders marked * are not declared at {self.revision}")
        return runs, checked

    @staticmethod
    def instruction_counts(runs: list[RunResult]) -> list[tuple]:
        """(case, contender, count at the revision, count now) for cells counted on both sides."""
        from perflab.metrics import instruction_counts
        found = []
        for run in runs:
            counts = instruction_counts(run)
            found += [(cell.case, run.sides[cell.contender]["contender"], counts[(cell.case, run.reference)],
                       counts[(cell.case, cell.contender)])
                      for cell in run.cells if cell.contender != run.reference
                      and (cell.case, cell.contender) in counts and (cell.case, run.reference) in counts]
        return found

    @staticmethod
    def problems(run: RunResult) -> list[str]:
        """A contender that fails; output that differs from the baseline is a note, not a failure
        (a pull request may change it on purpose)."""
        return [f"{cell.case}/{cell.contender}: {cell.error}" for cell in run.cells if cell.error]

    @staticmethod
    def current(runs: list[RunResult]) -> str:
        from perflab.worktrees import CURRENT
        git = ((runs[0].metadata.get("sides") or {}).get(CURRENT) or {}).get("git") or {} if runs else {}
        return f"working tree at {(git.get('commit') or '?')[:8]}{'+' if git.get('dirty') else ''} (measured now)"


def _baseline(args: argparse.Namespace, path: Path, name: str,
              counting: bool) -> _ResultsFileBaseline | _RevisionBaseline:
    """A results file, else a git revision of the benchmark's repository."""
    from perflab.interchange import load_file
    from perflab.metrics import instruction_counts
    against = Path(args.against)
    if against.is_file():
        result = load_file(against, benchmark=name)   # (the name is used for pyperf files only)
        if result.benchmark != name:
            raise cli.UsageError(f"{against}: holds benchmark {result.benchmark!r}, not {name!r}")
        if counting and not instruction_counts(result):
            raise cli.UsageError(f"{against}: has no instruction counts to compare with; measure the "
                                 "baseline with `perflab run --metric instructions --json FILE`")
        return _ResultsFileBaseline(result, against)
    commit = resolve_ref(path, args.against)
    if commit is None:
        raise cli.UsageError(f"--against {args.against}: no such results file, and not a git revision of "
                             f"the repository holding {path}")
    return _RevisionBaseline(args.against, commit)


def _import(args: argparse.Namespace, err: Console) -> int:
    from perflab.interchange import load_file
    results = [(file, load_file(file, args.benchmark, args.contender)) for file in args.files]  # all or none
    path = _db_path(args, None)
    from perflab.profile.stored import import_profiles
    with Store.open(path) as store:
        for file, result in results:
            run_id = store.save(result, source="import")
            profiles = import_profiles(store, run_id, Path(file))
            err.print(f"{file}: stored as run {run_id} ({result.benchmark}) in {path}"
                      + (f" with {profiles} profiles" if profiles else ""), markup=False)
    return cli.EXIT_OK


def _export(args: argparse.Namespace, err: Console) -> int:
    from perflab.interchange import export
    path = _db_path(args, None)
    with Store.open(path, create=False) as store:
        runs = [r for r in store.runs(args.benchmark) if not args.run or r.id in args.run]
        if not runs:
            raise cli.UsageError(f"{path}: no stored run matches (benchmarks: {', '.join(store.benchmarks()) or 'none'})")
        from perflab.profile.stored import export_profiles
        for run in runs:
            for written in export(store.result(run.id), run.id, args.directory, args.pyperf):
                err.print(f"run {run.id} written to {written}", markup=False)
                profiles = None if args.pyperf else export_profiles(store, run.id, written)
                if profiles:
                    err.print(f"run {run.id}'s profiles written to {profiles}", markup=False)
    return cli.EXIT_OK
