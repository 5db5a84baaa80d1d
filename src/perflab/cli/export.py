"""``perflab export``: stored runs written out as perflab results files or pyperf JSON."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    benchmark_name_option,
    db_path,
    pyperf_option,
    store_errors_are_bad_input,
    store_options,
    writing,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "export",
        "write stored runs out as perflab results files or pyperf JSON",
        "perflab export out/",
        "perflab export out/ --benchmark json_dumps --pyperf",
    )
    parser.add_argument("directory", metavar="DIR")
    benchmark_name_option(parser, "export writes only its runs; default: every benchmark's")
    parser.add_argument("--run", type=int, action="append", metavar="ID", help="only these run ids")
    pyperf_option(parser, "one folder per run, instead of perflab results files", into_directory=False)
    store_options(parser, saves=False, of_benchmark=False)
    parser.set_defaults(handler=store_errors_are_bad_input(run))


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.results.files import export, exported_paths
    from perflab.results.profiles import export_profiles
    from perflab.results.store import Store

    path = db_path(args, None)
    directory = Path(args.directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a directory; give a directory to export into")
    with Store.open(path, create=False) as store:
        runs = [r for r in store.runs(args.benchmark) if not args.run or r.id in args.run]
        if not runs:
            raise UsageError(
                f"{store.path}: no stored run matches (benchmarks: {', '.join(store.benchmarks()) or 'none'})"
            )
        results = [(run.id, store.result(run.id)) for run in runs]
        for run_id, result in results:  # every target checked before anything is written
            for target in exported_paths(result, run_id, directory, args.pyperf):
                if target.exists():
                    raise UsageError(f"{target}: exists already; export into another directory (nothing was written)")
        for run_id, result in results:
            with writing("exported runs", directory):
                for written in export(result, run_id, directory, args.pyperf):
                    err.print(f"run {run_id} written to {written}", markup=False)
                    profiles = None if args.pyperf else export_profiles(store, run_id, written)
                    if profiles:
                        err.print(f"run {run_id}'s profiles written to {profiles}", markup=False)
    return EXIT_OK
