"""The steps that run, compare and check share: timing with the live display, the metrics beside
wall time (``--metric``), and keeping every run in the results store.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from perflab.cli.common import UsageError, db_path, names, say
from perflab.measure.settings import Settings

if TYPE_CHECKING:
    from perflab.metrics import Measured
    from perflab.results.model import RunResult
    from perflab.spec import Benchmark


def measure(path: Path, benchmark: Benchmark, cases: list[str], contenders: list[str], settings: Settings,
            err: Console) -> RunResult:
    """Time the contenders on the cases, with the live progress display on ``err``."""
    from perflab.measure.runner import run_benchmark
    from perflab.render.terminal.progress import LiveProgress
    with LiveProgress(err, settings.max_time, settings.precision) as progress:
        return run_benchmark(str(path), benchmark, cases, contenders, settings, progress)


# ---- --metric -----------------------------------------------------------------------------------

def metric_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric", action="append", metavar="NAME",
                        help="also measure: instructions (valgrind), memory (tracemalloc, peak RSS), counters "
                             "(perf stat); time is always measured (repeat or comma-separate)")


def metric_names(requested: list[str] | None) -> list[str]:
    """``--metric`` values (time is always measured); a tool the metrics need must be installed."""
    from perflab import metrics
    wanted = names(requested)
    unknown = [name for name in wanted if name not in metrics.NAMES]
    if unknown:
        raise UsageError(f"--metric: unknown metric {unknown[0]!r} (choose from {', '.join(metrics.NAMES)})")
    try:
        metrics.check_tools(wanted)
    except metrics.MetricUnavailable as missing:
        raise UsageError(str(missing)) from None
    return wanted


def measure_metrics(result: RunResult, wanted: list[str], timeout: float, err: Console) -> Measured | None:
    """The metrics beside wall time, measured where the timing ran (None: only time requested), and
    kept in ``result.metrics`` so that --json and the results store hold them."""
    from perflab import metrics
    if result.interrupted or not set(wanted) - {metrics.TIME}:
        return None
    say(err, f"measuring {', '.join(n for n in wanted if n != metrics.TIME)} ...")
    measured = metrics.measure(result, wanted, timeout=max(timeout, 600.0))
    result.metrics = measured.to_json()
    return measured


def show_metrics(result: RunResult, measured: Measured | None) -> bool:
    """Print the metrics' tables after the timing table; True if any of them failed."""
    from perflab.render.terminal import metrics as metrics_terminal
    from perflab.render.terminal.console import stdout_console
    if measured is None:
        return False
    metrics_terminal.render(result, stdout_console(), measured)
    return bool(measured.errors)


# ---- the results store --------------------------------------------------------------------------

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
    """Keep the run in the database (unless --no-store). If the database refuses it, the run is
    written to a JSON file instead, so that nothing measured is lost."""
    from perflab.results.store import Store, StoreError
    if args.no_store:
        return Saved()
    if result.interrupted:
        err.print("[dim]interrupted run not stored (the history holds complete runs only)[/]")
        return Saved()
    path = db_path(args, benchmark_file)
    try:
        with Store.open(path) as store:   # a comparison of revisions: one run per revision
            run_ids = [store.save(run, source) for run in result.per_side(str(benchmark_file))]
    except StoreError as error:
        kept = Path(args.json) if getattr(args, "json", None) else Path(
            f"perflab-unsaved-{time.strftime('%Y%m%d-%H%M%S')}.json")
        if not kept.exists():
            result.save(kept)
        say(err, f"perflab: error: {error}; this run is kept in {kept} (`perflab import {kept}` later)")
        return Saved(refused=True)
    err.print(f"[dim]stored as run{'s' * (len(run_ids) > 1)} {', '.join(map(str, run_ids))} in {path}[/]")
    return Saved(run_id=run_ids[0] if len(run_ids) == 1 else None, path=path, run_ids=tuple(run_ids))
