"""``perflab compare``: A/B verdicts with CIs and equivalence (declared cases and fuzzing), across
contenders, git revisions or interpreters; the HTML report with profiles, and the Markdown summary.

Profiling adds time, so it runs only when a report is written (``--html``) unless
``--profile``/``--no-profile`` say otherwise.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support import command_options
from perflab.cli.support.measuring import (
    check_store,
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
    UsageError,
    add_verb,
    allow_mismatch_option,
    allow_skipped_option,
    bench_option,
    build_choice,
    build_options,
    case_option,
    check_outputs,
    contender_option,
    deprecated_alias,
    exit_code,
    from_revision,
    fuzz_option,
    names,
    one_name,
    output_option,
    profile_option,
    python_option,
    require_memray,
    rev_option,
    sampling_options,
    say,
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
        "compare",
        "A/B: verdicts with CIs, equivalence (declared cases and fuzzing), "
        "across contenders, git revisions or interpreters",
        "perflab compare bench.py                          # every contender vs the reference",
        "perflab compare json_dumps --contender orjson,ujson --case NESTED",
        "perflab compare bench.py --rev main --rev HEAD     # the same benchmark on two revisions",
        "perflab compare bench.py --rev HEAD --rev WORKTREE # uncommitted changes vs HEAD",
        "perflab compare /tmp/new_bench.py --rev v1.0 --rev v2.0  # today's benchmark on old code",
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
    contender_option(
        parser,
        "default: all against the reference; with --rev or --python, the one run on each side, default the reference",
    )
    deprecated_alias(parser, "--contenders", "--contender")
    rev_option(parser)
    build_options(parser)
    python_option(parser)
    case_option(parser, "default: every case all sides declare")
    bench_option(parser)
    fuzz_option(parser)
    timing_options(parser)
    allow_skipped_option(parser)
    output_option(parser, "--json", "perflab.results/2: every raw value, estimate and the metadata")
    output_option(parser, "--markdown", "the verdict table and what needs attention")
    output_option(
        parser,
        "--html",
        "verdicts, ratio chart, distributions, equivalence, flame graphs and the differential flame graph",
    )
    metric_option(parser)
    profile_option(parser, None, "default: only with --html")
    parser.add_argument(
        "--profile-memory",
        action="store_true",
        help="after timing, profile where each side allocates (memray: pip install 'perflab[memory]') instead "
        "of where it spends time, and diff it against the reference: bytes allocated per call by call path, "
        "with intervals across processes (with --native, C frames too; --html: the differential flame graph)",
    )
    sampling_options(parser, "per side and case")
    allow_mismatch_option(parser)
    store_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.measure import ab_test, difference_search
    from perflab.profile.settings import ProfileSettings
    from perflab.render.terminal import results as results_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.render.terminal.progress import LiveProgress

    path = command_options.benchmark_path(args)
    settings = timing_settings(args)
    if args.warmup is not None:
        settings.warmups = args.warmup
    across = bool(args.rev or args.python)  # one contender on every side, else contenders against the reference
    request = ab_test.Request(
        path,
        settings,
        cases=names(args.case) or None,
        case_patterns=args.bench,
        contenders=None if across else names(args.contender) or None,
        revisions=args.rev,
        pythons=args.python,
        contender=one_name(args.contender, "--contender with --rev or --python") if across else None,
        fuzz_examples=0 if args.no_fuzz else difference_search.DEFAULT_EXAMPLES,
        build=build_choice(args, err, bool(args.rev)),
        from_revision=from_revision(args),
    )
    check_outputs(args, "--html", "--json", "--markdown", inputs=(path, check_store(args, path)))
    profiler = None
    unprofiled = "not profiled (--no-profile)"
    # Command contenders (--command or a file's) are sampled by perf (perflab.profile.side_profiles).
    if args.profile_memory:
        if args.profile is False or args.samples:
            raise UsageError(f"--profile-memory and {'--samples' if args.samples else '--no-profile'}: choose one")
        require_memray("--profile-memory")
    if args.profile_memory or (args.profile if args.profile is not None else bool(args.html)):
        # Imported for profiling only, with the metrics below: they cost a comparison CPU.
        from perflab.profile.allocations import AllocationSettings
        from perflab.profile.side_profiles import Profiler

        profiler = Profiler(
            ProfileSettings(samples=args.samples, timeout=args.timeout, native=args.native, budget=args.max_time),
            args.allow_mismatch,
            on_progress=lambda message: say(err, message),
            memory=AllocationSettings(native=args.native, timeout=args.timeout) if args.profile_memory else None,
        )
    wanted_metrics, measured = metric_names(args.metric), []

    def after_timing(sides, cases, result) -> None:  # while revisions' worktrees still exist
        if profiler:
            profiler(sides, cases, result)
        measured.append(measure_metrics(result, wanted_metrics, settings, err))
        if not profiler:
            return
        from perflab import metrics

        for entry in profiler.profiles:  # --metric cache's misses in the flame graphs' tooltips
            for side, profile in ((entry.reference, entry.reference_profile), (entry.other, entry.other_profile)):
                metrics.annotate_profile(profile, result, entry.case, side)

    request.after_timing = after_timing
    try:
        with LiveProgress(err, settings.max_time, settings.precision) as progress:
            result = ab_test.compare(request, progress)
    except ab_test.CompareError as error:
        raise UsageError(str(error)) from None
    results_terminal.render(result, stdout_console())
    metrics_failed = show_metrics(result, measured[0] if measured else None)
    profiles, notes = (profiler.profiles, profiler.notes) if profiler else ([], [unprofiled])
    failed = write_outputs(result_writes(result, args, err, "compare", profiles, notes))
    saved = save_run(result, path, args, err, failed_outputs=failed)
    if not saved:
        return EXIT_BAD_INPUT
    if profiler and saved.run_ids and saved.path:  # the profiles of --profile/--html, with the runs of their sides
        from perflab.results.profiles import keep_comparison_profiles

        stored = keep_comparison_profiles(saved.path, saved.run_ids, result, profiler.profiles)
        err.print(f"[dim]{stored} profiles stored[/]")
    return max(exit_code(result, err, args.allow_skipped), EXIT_FAILURES if metrics_failed else EXIT_OK)
