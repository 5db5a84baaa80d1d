"""The regression guard's command-line verbs: history, check, import, export; and storing runs.

Kept apart from cli.py (which defines the measuring verbs and the shared options) so that each
file holds one concern; the verbs are registered on cli's parser by ``add_verbs``.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from rich.console import Console

from perflab import cli
# The store needs only the standard library; everything that imports scipy (results, stats,
# change points) is imported by the verbs that use it, so that `perflab --help` stays fast.
from perflab.store import Store, StoreError, default_path, machine_fingerprint, resolve_ref

if TYPE_CHECKING:
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
    store_options(history, saves=False)
    history.set_defaults(handler=_guarded(_history))

    check = cli._verb(verbs, "check", "CI gate: run the benchmark and fail only on a regression larger "
                                      "than --threshold against a baseline",
                      "perflab check bench.py --against baseline.json",
                      "perflab check bench.py --against main --threshold 3 >> \"$GITHUB_STEP_SUMMARY\"")
    check.add_argument("benchmark", help="a benchmark file, or the name of a built-in")
    check.add_argument("--against", required=True, metavar="FILE_OR_REF",
                       help="a perflab results JSON file, or a git ref/branch whose run is in the database")
    check.add_argument("--threshold", type=cli._percentage, default=0.05, metavar="PCT",
                       help="smallest slowdown that fails the check (default 5%%)")
    check.add_argument("--case", action="append", metavar="NAME", help="only these cases")
    check.add_argument("--contender", action="append", metavar="NAME", help="only these contenders")
    check.add_argument("--markdown", metavar="FILE", help="also write the Markdown summary to FILE")
    check.add_argument("--confirm", type=_count, default=1, metavar="N",
                       help="re-measure a regression N times before failing; each must show it (default 1)")
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


def save_run(result: RunResult, benchmark_file: Path, args: argparse.Namespace, err: Console,
             source: str = "run") -> bool:
    """Keep the run in the database (unless --no-store). False if the database refused it; the run
    is then written to a JSON file so that nothing measured is lost."""
    if args.no_store:
        return True
    if result.interrupted:
        err.print("[dim]interrupted run not stored (the history holds complete runs only)[/]")
        return True
    path = _db_path(args, benchmark_file)
    try:
        with Store.open(path) as store:
            run_id = store.save(result, source)
    except StoreError as error:
        kept = Path(args.json) if getattr(args, "json", None) else Path(
            f"perflab-unsaved-{time.strftime('%Y%m%d-%H%M%S')}.json")
        if not kept.exists():
            result.save(kept)
        err.print(f"perflab: error: {error}; this run is kept in {kept} (`perflab import {kept}` later)",
                  markup=False, soft_wrap=True)
        return False
    err.print(f"[dim]stored as run {run_id} in {path}[/]")
    return True


def _history(args: argparse.Namespace, err: Console) -> int:
    from perflab import changepoints, history
    from perflab.renderers import history_terminal, terminal
    name, file = _benchmark_name(args.benchmark)
    with Store.open(_db_path(args, file), create=False) as store:
        all_series = history.series(store, name, args.case, args.contender, args.any_machine, args.any_python)
    out = terminal.stdout_console()
    for series in all_series:
        notes = []
        if series.hidden:
            notes.append(f"{series.hidden} run(s) on other machines or interpreters not shown "
                         "(--any-machine / --any-python to include them)")
        history_terminal.render(out, f"{name} / {series.case} / {series.contender} — {len(series.points)} "
                                f"run(s) on {series.description}", series.points, series.dates,
                                changepoints.detect(series.points), notes)
    return cli.EXIT_OK


def _benchmark_name(text: str) -> tuple[str, Path | None]:
    """A benchmark file (or built-in) gives its declared name; anything else is a stored name."""
    try:
        path = cli.resolve_benchmark(text)
    except cli.UsageError:
        return text, None
    return cli.load_benchmark(path).name, path


def _check(args: argparse.Namespace, err: Console) -> int:
    from perflab import gate
    from perflab.renderers import markdown
    path = cli.resolve_benchmark(args.benchmark)
    benchmark = cli.load_benchmark(path)
    baseline, described = _baseline(args, path, benchmark.name)  # before measuring: fail fast
    cases = cli._select(args.case, benchmark.cases, "case", str(path))
    contenders = cli._select(args.contender, benchmark.contenders, "contender", str(path))
    settings = cli._settings(args)
    checked, result, stored, failed = None, None, True, False
    for attempt in range(args.confirm + 1):   # re-measure what looks regressed before failing
        if checked is not None:
            cases = list(dict.fromkeys(cell.case for cell in checked.regressions))
            err.print(f"possible regression in {', '.join(cases)}: measuring again to confirm "
                      f"({attempt}/{args.confirm})", markup=False)
        result = cli._measure(path, benchmark, cases, contenders, args, err)
        if result.interrupted:
            return cli.EXIT_INTERRUPTED
        stored = save_run(result, path, args, err, source="check") and stored
        failed = failed or bool(result.failures)
        again = gate.check(baseline, result, args.threshold, settings.alpha, settings.min_effect)
        if checked is not None:
            again = gate.confirm(checked, again)
            again.notes.append(f"what looked like a regression was measured again ({attempt} time(s)); "
                               "a regression counts only if every measurement shows it")
        checked = again
        if not checked.regressions:
            break
    git = result.metadata.get("git") or {}
    current = f"{(git.get('commit') or 'working tree')[:8]}{'+' if git.get('dirty') else ''} (this run)"
    summary = markdown.render_check(checked, benchmark.name, described, current)
    sys.stdout.write(summary)
    if args.markdown:
        Path(args.markdown).write_text(summary)
    if not checked.cells:
        raise cli.UsageError(f"{args.against}: no (case, contender) in common with this run of "
                             f"{benchmark.name}; nothing to compare")
    if checked.regressions or failed:
        return cli.EXIT_FAILURES
    return cli.EXIT_OK if stored else cli.EXIT_BAD_INPUT


def _baseline(args: argparse.Namespace, path: Path, name: str) -> tuple[RunResult, str]:
    """The run to compare with: a results file, or the newest stored run at a git ref/branch
    (preferring one from this machine and interpreter)."""
    from perflab import metadata
    from perflab.interchange import load_file
    against = Path(args.against)
    if against.is_file():
        result = load_file(against, benchmark=name)   # (the name is used for pyperf files only)
        if result.benchmark != name:
            raise cli.UsageError(f"{against}: holds benchmark {result.benchmark!r}, not {name!r}")
        return result, f"`{against}`"
    commit = resolve_ref(path, args.against)
    db = _db_path(args, path)
    if not db.exists():
        raise cli.UsageError(f"{args.against}: no such file, and no database at {db} to find a stored run in")
    with Store.open(db, create=False) as store:
        runs = store.runs_at(name, commit, args.against)
        if not runs:
            where = f"commit {commit[:8]}" if commit else "that ref"
            raise cli.UsageError(f"{args.against}: no such file, and no stored run of {name} at {where} in {db} "
                                 "(run `perflab run` on that revision first, or pass a results file)")
        same = [r for r in runs if r.machine_id == machine_fingerprint(metadata.machine_info())]
        chosen = (same or runs)[0]
        return store.result(chosen.id), f"stored run {chosen.id} at {chosen.label} ({chosen.git_branch or 'no branch'})"


def _import(args: argparse.Namespace, err: Console) -> int:
    from perflab.interchange import load_file
    results = [(file, load_file(file, args.benchmark, args.contender)) for file in args.files]  # all or none
    path = _db_path(args, None)
    with Store.open(path) as store:
        for file, result in results:
            run_id = store.save(result, source="import")
            err.print(f"{file}: stored as run {run_id} ({result.benchmark}) in {path}", markup=False)
    return cli.EXIT_OK


def _export(args: argparse.Namespace, err: Console) -> int:
    from perflab.interchange import export
    path = _db_path(args, None)
    with Store.open(path, create=False) as store:
        runs = [r for r in store.runs(args.benchmark) if not args.run or r.id in args.run]
        if not runs:
            raise cli.UsageError(f"{path}: no stored run matches (benchmarks: {', '.join(store.benchmarks()) or 'none'})")
        for run in runs:
            for written in export(store.result(run.id), run.id, args.directory, args.pyperf):
                err.print(f"run {run.id} written to {written}", markup=False)
    return cli.EXIT_OK
