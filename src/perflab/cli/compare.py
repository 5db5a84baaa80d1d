"""``perflab compare``: A/B verdicts with CIs and equivalence (declared cases and fuzzing), across
contenders, git revisions or interpreters; the HTML report with profiles, and the Markdown summary.

Profiling adds time, so it runs only when a report is written (``--html``) unless
``--profile``/``--no-profile`` say otherwise.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support import command_options
from perflab.cli.support.measuring import (
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
    UsageError,
    add_verb,
    allow_skipped_option,
    bench_option,
    check_outputs,
    db_path,
    exit_code,
    fuzz_option,
    names,
    say,
    store_options,
    timing_options,
    timing_settings,
    write_output,
    write_outputs,
)
from perflab.option_types import whole_number
from perflab.profile.settings import DEFAULT_SAMPLES, ProfileSettings

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "compare",
        "A/B: verdicts with CIs, equivalence (declared cases and fuzzing), "
        "across contenders, git revisions or interpreters",
        "perflab compare bench.py                          # every contender vs the reference",
        "perflab compare json_dumps --contenders orjson,ujson --case NESTED",
        "perflab compare bench.py --rev main --rev HEAD     # the same benchmark on two revisions",
        "perflab compare bench.py --rev HEAD --rev WORKTREE # uncommitted changes vs HEAD",
        "perflab compare bench.py --python python3.11 --python python3.12",
        "perflab compare bench.py --markdown summary.md --json results.json",
        "perflab compare json_dumps --html report.html   # with flame graphs and differential profiles",
    )
    parser.add_argument(
        "benchmark",
        nargs="?",
        help="a benchmark file, an asv suite (its benchmark directory or asv.conf.json), or a built-in's name",
    )
    command_options.add_options(parser)  # or --command CMD ...: programs, without a file
    parser.add_argument(
        "--contenders", metavar="A,B,...", help="contenders to compare with the reference (default all)"
    )
    parser.add_argument(
        "--rev",
        action="append",
        metavar="REV",
        help="a git revision (repeat; WORKTREE = uncommitted state); each runs in its own worktree",
    )
    parser.add_argument("--python", action="append", metavar="PYTHON", help="an interpreter (repeat)")
    parser.add_argument(
        "--contender",
        metavar="NAME",
        help="with --rev/--python: the contender to run on each side (default the reference)",
    )
    parser.add_argument("--case", action="append", metavar="NAME", help="only these cases (repeat or comma-separate)")
    bench_option(parser)
    fuzz_option(parser)
    timing_options(parser)
    allow_skipped_option(parser)
    parser.add_argument("--json", metavar="FILE", help="write the results (perflab.results/2)")
    parser.add_argument("--markdown", metavar="FILE", help="write a summary to paste into a pull request")
    metric_option(parser)
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="write one offline HTML report: verdicts, ratio chart, distributions, equivalence, "
        "flame graphs and the differential flame graph",
    )
    parser.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="profile every side per case after timing (default: only with --html)",
    )
    parser.add_argument(
        "--samples",
        type=whole_number(1),
        metavar="N",
        help=f"profile samples per side and case (default {DEFAULT_SAMPLES[False]}, with --native {DEFAULT_SAMPLES[True]})",
    )
    parser.add_argument(
        "--native", action="store_true", help="profile C frames too (py-spy --native): the view inside C extensions"
    )
    parser.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="diff profiles even when their sampler, mode or interpreter differ "
        "(needed for a differential profile across --python interpreters)",
    )
    store_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.measure import ab_test, difference_search
    from perflab.profile.side_profiles import Profiler
    from perflab.render import markdown
    from perflab.render.html import report
    from perflab.render.terminal import results as results_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.render.terminal.progress import LiveProgress
    from perflab.results.profiles import keep_comparison_profiles

    path = command_options.benchmark_path(args)
    settings = timing_settings(args)
    if args.warmup is not None:
        settings.warmups = args.warmup
    request = ab_test.Request(
        path,
        settings,
        cases=names(args.case) or None,
        case_patterns=args.bench,
        contenders=names([args.contenders]) if args.contenders else None,
        revisions=args.rev,
        pythons=args.python,
        contender=args.contender,
        fuzz_examples=0 if args.no_fuzz else difference_search.DEFAULT_EXAMPLES,
    )
    check_outputs(args, "--html", "--json", "--markdown", inputs=(path, None if args.no_store else db_path(args, path)))
    profiler = None
    unprofiled = "not profiled (--no-profile)"
    # Command contenders (--command or a file's) are sampled by perf (perflab.profile.side_profiles).
    if args.profile if args.profile is not None else bool(args.html):
        profiler = Profiler(
            ProfileSettings(samples=args.samples, timeout=args.timeout, native=args.native),
            args.allow_mismatch,
            on_progress=lambda message: say(err, message),
        )
    wanted_metrics, measured = metric_names(args.metric), []

    def after_timing(sides, cases, result) -> None:  # while revisions' worktrees still exist
        if profiler:
            profiler(sides, cases, result)
        measured.append(measure_metrics(result, wanted_metrics, settings.timeout, err))

    request.after_timing = after_timing
    try:
        with LiveProgress(err, settings.max_time, settings.precision) as progress:
            result = ab_test.compare(request, progress)
    except ab_test.CompareError as error:
        raise UsageError(str(error)) from None
    results_terminal.render(result, stdout_console())
    metrics_failed = show_metrics(result, measured[0] if measured else None)

    def summary() -> None:
        if args.markdown:
            write_output(args.markdown, markdown.render_result(result), "summary", err)

    def html() -> None:
        if args.html:
            section = report.Section(
                result,
                profiler.profiles if profiler else [],
                profiler.notes if profiler else [unprofiled],
            )
            write_report(args.html, report.render([section], f"perflab compare: {result.benchmark}"), err)

    failed = write_outputs(
        {"--json": lambda: save_results(result, args.json, err), "--markdown": summary, "--html": html}
    )
    saved = save_run(result, path, args, err, failed_outputs=failed)
    if not saved:
        return EXIT_BAD_INPUT
    if profiler and saved.run_ids and saved.path:  # the profiles of --profile/--html, with the runs of their sides
        stored = keep_comparison_profiles(saved.path, saved.run_ids, result, profiler.profiles)
        err.print(f"[dim]{stored} profiles stored[/]")
    return max(exit_code(result, err, args.allow_skipped), EXIT_FAILURES if metrics_failed else EXIT_OK)


def write_report(path: str, page: str, err: Console) -> None:
    """Write an HTML report and say where it is, as a full path: it is opened in a browser."""
    write_output(path, page, "report", err, shown=str(Path(path).resolve()))
