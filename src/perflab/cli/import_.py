"""``perflab import``: results files (perflab's JSON, pyperf JSON, Google Benchmark, criterion.rs, asv) and
other perflab stores (SQLite files) into the results database."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    benchmark_name_option,
    contender_option,
    db_path,
    one_name,
    store_errors_are_bad_input,
    store_options,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "import",
        "load perflab results, pyperf JSON, Google Benchmark JSON, criterion.rs or asv results, or other perflab "
        "stores into the database",
        "perflab import results.json",
        "perflab import laptop.db ci-artifact.db --db postgresql://perf@db.example.org/perflab",
        "perflab import pyperf-out/orjson.json --benchmark json_dumps",
        "perflab import gbench.json --benchmark find   (from --benchmark_format=json --benchmark_repetitions=10)",
        "perflab import target/criterion/find_byte     (criterion.rs: every benchmark below the directory)",
        "perflab import .asv/results/MACHINE/*-*.json  (asv: one run per commit; benchmarks.json is read beside)",
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    benchmark_name_option(
        parser,
        "import gives it to pyperf, Google Benchmark, criterion and asv results; default: the file or group "
        "name, for asv 'benchmarks', as perflab run names a suite in asv's default benchmark_dir",
    )
    contender_option(parser, "import gives one name to the results of pyperf files; default: the file name")
    store_options(parser, saves=False, of_benchmark=False)
    parser.set_defaults(handler=store_errors_are_bad_input(run))


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.results.files import load_file
    from perflab.results.merge import is_sqlite_file, merge_store
    from perflab.results.profiles import import_profiles
    from perflab.results.store import Store

    path = db_path(args, None)
    if any(_same_file(path, file) for file in args.files):
        raise UsageError(f"{path}: is the results database itself; import results files into it")
    stores = [file for file in args.files if is_sqlite_file(file)]
    files = [file for file in args.files if file not in stores]
    contender = one_name(args.contender, "--contender")
    results = [(file, load_file(file, args.benchmark, contender)) for file in files]  # all or none
    with Store.open(path) as store:
        for file in stores:
            merged = merge_store(file, store)
            err.print(
                f"{file}: {merged.copied} run(s) stored in {store.path} ({merged.present} there already), "
                f"{merged.profiles} profile(s), {merged.marks} change mark(s)",
                markup=False,
                soft_wrap=True,
            )
        for file, result in results:
            stored = store.find(result)
            if stored is not None:
                err.print(f"{file}: already stored as run {stored} in {store.path}; not stored again", markup=False)
                continue
            run_id = store.save(result, source="import")
            profiles = import_profiles(store, run_id, Path(file))
            err.print(
                f"{file}: stored as run {run_id} ({result.benchmark}) in {store.path}"
                + (f" with {profiles} profiles" if profiles else ""),
                markup=False,
            )
    return EXIT_OK


def _same_file(a: Path | str, b: str) -> bool:
    try:
        return isinstance(a, Path) and a.exists() and a.samefile(b)
    except OSError:
        return False
