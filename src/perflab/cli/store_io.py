"""``perflab import`` and ``perflab export``: results files (perflab's JSON, pyperf JSON) into and
out of the results database; ``perflab import`` also merges other perflab stores (SQLite files)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from perflab.cli.common import (
    EXIT_OK,
    UsageError,
    add_verb,
    db_path,
    store_errors_are_bad_input,
    store_options,
    writing,
)


def register_import(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "import",
        "load perflab results, pyperf JSON, Google Benchmark JSON, criterion.rs results or other perflab stores "
        "into the database",
        "perflab import results.json",
        "perflab import laptop.db ci-artifact.db --db postgresql://perf@db.example.org/perflab",
        "perflab import pyperf-out/orjson.json --benchmark json_dumps",
        "perflab import gbench.json --benchmark find   (from --benchmark_format=json --benchmark_repetitions=10)",
        "perflab import target/criterion/find_byte     (criterion.rs: every benchmark below the directory)",
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument(
        "--benchmark",
        metavar="NAME",
        help="benchmark name for pyperf, Google Benchmark or criterion results (default: file or group name)",
    )
    parser.add_argument("--contender", metavar="NAME", help="contender name for pyperf files (default: file name)")
    store_options(parser, saves=False)
    parser.set_defaults(handler=store_errors_are_bad_input(run_import))


def register_export(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "export",
        "write stored runs out as perflab results files or pyperf JSON",
        "perflab export out/",
        "perflab export out/ --benchmark json_dumps --pyperf",
    )
    parser.add_argument("directory", metavar="DIR")
    parser.add_argument("--benchmark", metavar="NAME", help="only runs of this benchmark")
    parser.add_argument("--run", type=int, action="append", metavar="ID", help="only these run ids")
    parser.add_argument("--pyperf", action="store_true", help="pyperf JSON (one folder per run) instead of perflab's")
    store_options(parser, saves=False)
    parser.set_defaults(handler=store_errors_are_bad_input(run_export))


def run_import(args: argparse.Namespace, err: Console) -> int:
    from perflab.results.files import load_file
    from perflab.results.merge import is_sqlite_file, merge_store
    from perflab.results.profiles import import_profiles
    from perflab.results.store import Store

    path = db_path(args, None)
    if any(_same_file(path, file) for file in args.files):
        raise UsageError(f"{path}: is the results database itself; import results files into it")
    stores = [file for file in args.files if is_sqlite_file(file)]
    files = [file for file in args.files if file not in stores]
    results = [(file, load_file(file, args.benchmark, args.contender)) for file in files]  # all or none
    with Store.open(path) as store:
        for file in stores:
            merged = merge_store(file, store)
            err.print(
                f"{file}: {merged.copied} run(s) stored in {path} ({merged.present} there already), "
                f"{merged.profiles} profile(s), {merged.marks} change mark(s)",
                markup=False,
                soft_wrap=True,
            )
        for file, result in results:
            stored = store.find(result)
            if stored is not None:
                err.print(f"{file}: already stored as run {stored} in {path}; not stored again", markup=False)
                continue
            run_id = store.save(result, source="import")
            profiles = import_profiles(store, run_id, Path(file))
            err.print(
                f"{file}: stored as run {run_id} ({result.benchmark}) in {path}"
                + (f" with {profiles} profiles" if profiles else ""),
                markup=False,
            )
    return EXIT_OK


def run_export(args: argparse.Namespace, err: Console) -> int:
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
            raise UsageError(f"{path}: no stored run matches (benchmarks: {', '.join(store.benchmarks()) or 'none'})")
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


def _same_file(a: Path | str, b: str) -> bool:
    try:
        return isinstance(a, Path) and a.exists() and a.samefile(b)
    except OSError:
        return False
