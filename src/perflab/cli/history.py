"""``perflab history``: a benchmark's times over commits, with 95% CIs and change points."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.measuring import METRIC_HELP
from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    case_option,
    contender_option,
    db_path,
    one_name,
    resolve_benchmark,
    store_errors_are_bad_input,
    store_options,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "history",
        "a benchmark's times over commits, with 95%% CIs and change points",
        "perflab history json_dumps",
        "perflab history bench.py --case SMALL --any-machine",
        "perflab history json_dumps --machine bench-box --db postgresql://perf@db.example.org/perflab",
    )
    parser.add_argument("benchmark", help="a stored benchmark's name, or its file")
    case_option(parser, "history shows one; default: every case")
    contender_option(parser, "history shows one; default: the reference")
    parser.add_argument(
        "--machine",
        metavar="ID|HOST",
        help="the runs of this machine: its fingerprint (or a prefix) or host name (default: the latest run's machine)",
    )
    parser.add_argument("--any-machine", action="store_true", help="include runs from other machines")
    parser.add_argument("--any-python", action="store_true", help="include runs from other interpreters")
    parser.add_argument(
        "--metric",
        choices=("time", "instructions", "memory"),
        default="time",
        help=METRIC_HELP + " (the one shown: time; instructions, or bytes allocated per call (memory), from runs "
        "measured with that --metric; default time)",
    )
    store_options(parser, saves=False)
    parser.set_defaults(handler=store_errors_are_bad_input(run))


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.analysis import changepoints
    from perflab.render.terminal import history as history_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.results import history
    from perflab.results.store import Store

    name, file = benchmark_name(args.benchmark)
    out = stdout_console()
    with Store.open(db_path(args, file), create=False) as store:  # open while rendering: profiles load per step
        for series in history.series(
            store,
            name,
            one_name(args.case, "--case"),
            one_name(args.contender, "--contender"),
            args.any_machine,
            args.any_python,
            args.metric,
            args.machine,
        ):
            notes = []
            if series.hidden:
                notes.append(
                    f"{series.hidden} run(s) on other machines or interpreters not shown "
                    "(--any-machine / --any-python to include them)"
                )
            if series.checks:
                notes.append(
                    f"{series.checks} run(s) of perflab check not shown: a baseline and a working tree "
                    "measured side by side for the gate are no points of a history"
                )
            changes = changepoints.detect(series.points, min_step=series.min_step)
            timed = series.metric == history.TIME  # profiles show where time went, at time steps
            history_terminal.render(
                series.points,
                out,
                f"{name} / {series.case} / {series.contender} — {len(series.points)} run(s) on {series.description}",
                series.dates,
                changes,
                notes,
                history.step_profiles(store, series, changes) if timed else None,
                scale=history_terminal.SCALES[series.metric],
            )
    return EXIT_OK


def benchmark_name(text: str) -> tuple[str, Path | None]:
    """A benchmark file (or built-in, or asv suite) gives its declared name; anything else is a
    stored name (a directory that is no asv suite, e.g. ``benchmarks`` of imported asv results)."""
    from perflab.bench.loading import load_benchmark
    from perflab.bench.spec import BenchmarkFileError

    try:
        path = resolve_benchmark(text)
    except UsageError:
        return text, None
    try:
        return load_benchmark(path).name, path
    except BenchmarkFileError:
        if path.is_dir():
            return text, None
        raise
