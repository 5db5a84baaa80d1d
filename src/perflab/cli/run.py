"""``perflab run``: time every contender of every case, adaptively, with 95% CIs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli import profile as profile_verb
from perflab.cli.support import command_options
from perflab.cli.support.measuring import (
    check_pyperf_folder,
    check_store,
    export_pyperf,
    measure,
    measure_metrics,
    metric_names,
    metric_option,
    result_writes,
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
    case_option,
    check_outputs,
    contender_option,
    exit_code,
    fuzz_option,
    output_option,
    pyperf_option,
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
        "perflab run bench.py --markdown summary.md --html report.html",
        "perflab run bench.py --pyperf pyperf-out/  &&  pyperf compare_to pyperf-out/a.json pyperf-out/b.json",
        "perflab run asv.conf.json -b 'TimeSuite.time_keys'    # an asv suite, unchanged",
    )
    parser.add_argument(
        "benchmark",
        nargs="?",
        help="a benchmark file, an asv suite (its benchmark directory or asv.conf.json), or a built-in's name",
    )
    command_options.add_options(parser)  # or --command CMD ...: programs, without a file
    case_option(parser, "default: all")
    bench_option(parser)
    contender_option(parser, "default: all; the reference is always measured")
    fuzz_option(parser)
    timing_options(parser)
    allow_skipped_option(parser)
    output_option(parser, "--json", "perflab.results/2: every raw value, estimate and the metadata")
    output_option(parser, "--markdown", "the verdict table and what needs attention")
    output_option(parser, "--html", "the verdict table, ratio chart, distributions and equivalence")
    pyperf_option(parser, "one file per contender, written into DIR")
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
        "--markdown",
        "--html",
        directories=("--pyperf", "--profile-dir"),
        inputs=(path, check_store(args, path)),
    )
    check_pyperf_folder(args.pyperf, benchmark.name, contenders)
    settings = timing_settings(args)
    if args.warmup is not None:
        settings.warmups = args.warmup
    from perflab.measure.difference_search import DEFAULT_EXAMPLES

    result = measure(path, benchmark, cases, contenders, settings, err, 0 if args.no_fuzz else DEFAULT_EXAMPLES)
    results_terminal.render(result, stdout_console())
    metrics_failed = show_metrics(result, measure_metrics(result, wanted_metrics, settings, err))
    failed = write_outputs(
        {
            **result_writes(
                result,
                args,
                err,
                "run",
                profiles=[],
                notes=["not profiled: perflab compare --html profiles every side"],
            ),
            "--pyperf": lambda: export_pyperf(result, args.pyperf, err),
        }
    )
    saved = save_run(result, path, args, err, failed_outputs=failed)  # every run goes to the results store
    if not saved:
        return EXIT_BAD_INPUT
    profiled = profile_verb.after_run(result, path, benchmark.name, args, err, saved)
    return max(exit_code(result, err, args.allow_skipped), profiled, EXIT_FAILURES if metrics_failed else EXIT_OK)
