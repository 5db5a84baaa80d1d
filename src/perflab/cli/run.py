"""``perflab run``: time every contender of every case, adaptively, with 95% CIs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli import profile as profile_verb
from perflab.cli.support import command_options
from perflab.cli.support.measuring import (
    export_pyperf,
    measure,
    measure_metrics,
    metric_names,
    metric_option,
    save_results,
    save_run,
    show_metrics,
)
from perflab.cli.support.options import (
    EXIT_BAD_INPUT,
    EXIT_FAILURES,
    EXIT_OK,
    add_verb,
    allow_skipped_option,
    bench_option,
    check_outputs,
    db_path,
    exit_code,
    fuzz_option,
    say,
    select,
    select_matching,
    store_options,
    timing_options,
    timing_settings,
    write_outputs,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "run",
        "time every contender of every case, adaptively, with 95%% CIs",
        "perflab run bench.py",
        "perflab run json_dumps --case NESTED --contender json_stdlib,orjson",
        "perflab run bench.py --precision 0.5 --max-time 120 --json results.json",
        "perflab run bench.py --pyperf pyperf-out/  &&  pyperf compare_to pyperf-out/a.json pyperf-out/b.json",
        "perflab run asv.conf.json -b 'TimeSuite.time_keys'    # an asv suite, unchanged",
    )
    parser.add_argument(
        "benchmark",
        nargs="?",
        help="a benchmark file, an asv suite (its benchmark directory or asv.conf.json), or a built-in's name",
    )
    command_options.add_options(parser)  # or --command CMD ...: programs, without a file
    parser.add_argument("--case", action="append", metavar="NAME", help="only these cases (repeat or comma-separate)")
    bench_option(parser)
    parser.add_argument(
        "--contender",
        action="append",
        metavar="NAME",
        help="only these contenders (repeat or comma-separate); the reference is always kept",
    )
    fuzz_option(parser)
    timing_options(parser)
    allow_skipped_option(parser)
    parser.add_argument(
        "--json", metavar="FILE", help="write all raw values, estimates and metadata (perflab.results/2)"
    )
    parser.add_argument("--pyperf", metavar="DIR", help="write one pyperf JSON file per contender into DIR")
    store_options(parser)
    profile_verb.after_run_options(parser)  # --profile: profile after timing
    metric_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.bench.loading import load_benchmark
    from perflab.render.terminal import results as results_terminal
    from perflab.render.terminal.console import stdout_console

    path = command_options.benchmark_path(args)
    benchmark = load_benchmark(path)
    for note in benchmark.notes:
        say(err, f"perflab run: {note}")
    cases = select_matching(select(args.case, benchmark.cases, "case", str(path)), args.bench, str(path))
    contenders = select(args.contender, benchmark.contenders, "contender", str(path))
    if benchmark.reference.name not in contenders:  # everything is measured against it
        contenders.insert(0, benchmark.reference.name)
    wanted_metrics = metric_names(args.metric)  # a missing tool fails here, before anything is measured
    check_outputs(
        args,
        "--json",
        directories=("--pyperf", "--profile-dir"),
        inputs=(path, None if args.no_store else db_path(args, path)),
    )
    settings = timing_settings(args)
    if args.warmup is not None:
        settings.warmups = args.warmup
    from perflab.measure.difference_search import DEFAULT_EXAMPLES

    result = measure(path, benchmark, cases, contenders, settings, err, 0 if args.no_fuzz else DEFAULT_EXAMPLES)
    results_terminal.render(result, stdout_console())
    metrics_failed = show_metrics(result, measure_metrics(result, wanted_metrics, settings.timeout, err))
    failed = write_outputs(
        {
            "--json": lambda: save_results(result, args.json, err),
            "--pyperf": lambda: export_pyperf(result, args.pyperf, err),
        }
    )
    saved = save_run(result, path, args, err, failed_outputs=failed)  # every run goes to the results store
    if not saved:
        return EXIT_BAD_INPUT
    profiled = profile_verb.after_run(result, path, benchmark.name, args, err, saved)
    return max(exit_code(result, err, args.allow_skipped), profiled, EXIT_FAILURES if metrics_failed else EXIT_OK)
