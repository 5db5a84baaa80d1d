"""The steps that run, compare and check share: timing with the live display, the metrics beside
wall time (``--metric``), and keeping every run in the results store.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import UsageError, db_path, names, say, write_if_asked, write_report, writing
from perflab.credentials import mask_credentials

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.bench.spec import Benchmark
    from perflab.measure.settings import Settings
    from perflab.metrics import Measured
    from perflab.render.html.report import CaseProfiles
    from perflab.results.model import RunResult


def measure(
    path: Path,
    benchmark: Benchmark,
    cases: list[str],
    contenders: list[str],
    settings: Settings,
    err: Console,
    fuzz_examples: int = 0,
) -> RunResult:
    """Fuzz, check and time the contenders on the cases, with the live progress display on ``err``
    (``fuzz_examples``: generated inputs per contender; the stateful patterns run anyway)."""
    from perflab.measure.runner import run_benchmark
    from perflab.render.terminal.progress import LiveProgress

    with LiveProgress(err, settings.max_time, settings.precision) as progress:
        return run_benchmark(str(path), benchmark, cases, contenders, settings, progress, fuzz_examples)


# ---- --metric -----------------------------------------------------------------------------------


METRIC_HELP = (
    "what is measured: time per call (always), instructions (valgrind), memory (tracemalloc, peak RSS), "
    "counters (perf stat), cache (simulated cache and branch counters, valgrind)"
)


def metric_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help=METRIC_HELP + " (the ones to measure beside time; repeat or comma-separate)",
    )


def metric_names(requested: list[str] | None) -> list[str]:
    """``--metric`` values (time is always measured); a tool the metrics need must be installed."""
    wanted = names(requested)
    if not wanted:  # time only: no metric's modules to import (memray's, valgrind's: a tenth of a second)
        return wanted
    from perflab import metrics

    unknown = [name for name in wanted if name not in metrics.NAMES]
    if unknown:
        raise UsageError(f"--metric: unknown metric {unknown[0]!r} (choose from {', '.join(metrics.NAMES)})")
    try:
        metrics.check_tools(wanted)
    except metrics.MetricUnavailable as missing:
        raise UsageError(str(missing)) from None
    return wanted


def measure_metrics(result: RunResult, wanted: list[str], settings: Settings, err: Console) -> Measured | None:
    """The metrics beside wall time, measured where the timing ran (None: only time requested), and
    kept in ``result.metrics`` so that --json and the results store hold them."""
    if not wanted:  # as metric_names: time only, without importing the metrics
        return None
    from perflab import metrics

    if result.interrupted or not set(wanted) - {metrics.TIME}:
        return None
    say(err, f"measuring {', '.join(n for n in wanted if n != metrics.TIME)} ...")
    measured = metrics.measure(result, wanted, max(settings.timeout, 600.0), settings.counted_processes)
    result.metrics = measured.to_json()
    return measured


def show_metrics(result: RunResult, measured: Measured | None) -> bool:
    """Print the metrics' tables after the timing table; True if any of them failed."""
    if measured is None:
        return False
    from perflab.render.terminal import metrics as metrics_terminal
    from perflab.render.terminal.console import stdout_console

    metrics_terminal.render(result, stdout_console(), measured)
    return bool(measured.errors)


# ---- results files ------------------------------------------------------------------------------


def result_writes(
    result: RunResult, args: argparse.Namespace, err: Console, verb: str, profiles: list[CaseProfiles], notes: list[str]
) -> dict[str, Callable[[], object]]:
    """The writes of --json, --markdown and --html, by option (for ``write_outputs``): the formats
    every verb that measures a run offers. ``profiles`` and ``notes`` go into the HTML report.
    The renderers are imported only for the options given (the HTML report's, jinja2 and the flame
    graphs, cost more CPU than a worker process)."""

    def markdown_summary() -> str:
        from perflab.render import markdown

        return markdown.render_result(result)

    def summary() -> None:
        write_if_asked(args.markdown, markdown_summary, "summary", err)

    def html() -> None:
        if args.html:
            from perflab.render.html import report

            page = report.render([report.Section(result, profiles, notes)], f"perflab {verb}: {result.benchmark}")
            write_report(args.html, page, err)

    return {"--json": lambda: save_results(result, args.json, err), "--markdown": summary, "--html": html}


def save_results(result: RunResult, path: str | None, err: Console) -> None:
    """``--json``: the run as a perflab results file (nothing when ``path`` is None)."""
    if path:
        with writing("results", path):
            result.save(path)
        say(err, f"results written to {path}")


def check_pyperf_folder(directory: str | None, benchmark: str, contenders: list[str]) -> None:
    """``--pyperf DIR`` before measuring: a file the run would write there exists already (two
    runs into one folder), so the run would end unable to write it; pyperf's ``-o`` refuses too."""
    if directory:
        from perflab.results import pyperf  # and pyperf itself: imported for this option only

        exists = pyperf.existing_files(directory, benchmark, contenders)
        if exists:
            raise UsageError(
                f"--pyperf {directory}: {', '.join(map(str, exists))} exists (an earlier run's); perflab does not "
                "replace pyperf files: give another folder, or remove the file"
            )


def export_pyperf(result: RunResult, directory: str | None, err: Console) -> None:
    """``--pyperf``: one pyperf JSON file per contender in ``directory`` (nothing when None)."""
    if directory:
        from perflab.results import pyperf  # and pyperf itself: imported for this option only

        with writing("pyperf results", directory):
            for written in pyperf.export(result, directory):
                say(err, f"pyperf results written to {written}")


# ---- the results store --------------------------------------------------------------------------


def check_store(args: argparse.Namespace, benchmark_file: Path) -> Path | str | None:
    """The store this run will be kept in (None with --no-store), opened before measuring: a --db
    that is a text file, a directory or another program's database is one line now, not after
    the measurement."""
    from perflab.results.store import Store, StoreError

    if args.no_store:
        return None
    path = db_path(args, benchmark_file)
    if isinstance(path, Path) and not path.exists():
        return path  # created when the run is saved: a refused option must leave no file behind
    try:
        Store.open(path).close()
    except StoreError as error:
        raise UsageError(f"--db {error}" if args.db else str(error)) from None
    return path


@dataclass(frozen=True)
class Saved:
    """What became of a run: where it was stored (``run_id`` in the database at ``path``; None when
    not stored, as with --no-store). False as a truth value only when the database refused it."""

    refused: bool = False
    run_id: int | None = None
    path: Path | str | None = None  # a SQLite file or a postgresql:// URL
    run_ids: tuple[int, ...] = ()  # every run stored (one per side of a comparison of revisions)

    def __bool__(self) -> bool:
        return not self.refused


def save_run(
    result: RunResult,
    benchmark_file: Path,
    args: argparse.Namespace,
    err: Console,
    source: str = "run",
    failed_outputs: Mapping[str, str] | None = None,
) -> Saved:
    """Keep the run in the database (unless --no-store). If the database refuses it, or an output
    file could not be written (``failed_outputs``, by option), the run is also written to a
    ``perflab-unsaved-*.json`` file, so that nothing measured is lost, and the user is told where."""
    from rich.markup import escape

    from perflab.results.files import unsaved_file
    from perflab.results.store import Store, StoreError

    failed_outputs = failed_outputs or {}
    problems = list(failed_outputs.values())
    stored: list[int] = []
    path = db_path(args, benchmark_file)
    if result.interrupted and not args.no_store:
        err.print("[dim]interrupted run not stored (the history holds complete runs only)[/]")
    elif not args.no_store:
        try:
            with Store.open(path) as store:  # a comparison of revisions: one run per revision
                stored = [store.save(run, source) for run in result.per_side(str(benchmark_file))]
        except StoreError as error:
            problems.append(str(error))
    if stored:
        err.print(
            f"[dim]stored as run{'s' * (len(stored) > 1)} {', '.join(map(str, stored))} in {escape(mask_credentials(str(path)))}[/]"
        )
    if not problems:
        return Saved(
            run_id=stored[0] if len(stored) == 1 else None, path=path if stored else None, run_ids=tuple(stored)
        )
    json_written = getattr(args, "json", None) and "--json" not in failed_outputs
    kept = (
        [f"{mask_credentials(str(path))} (as run{'s' * (len(stored) > 1)} {', '.join(map(str, stored))})"]
        if stored
        else []
    )
    if json_written:
        kept.append(str(args.json))
    else:
        unsaved = unsaved_file()
        try:
            result.save(unsaved)
            kept.append(f"{unsaved} (`perflab import {unsaved}` later)")
        except OSError as error:
            problems.append(f"cannot write {unsaved}: {error.strerror or error}")
    where = f"this run is kept in {' and in '.join(kept)}" if kept else "this run could not be kept anywhere"
    say(err, f"perflab: error: {'; '.join(problems)}; {where}")
    return Saved(refused=True, run_id=stored[0] if len(stored) == 1 else None, path=path if stored else None)
