"""``perflab demo``: built-in case studies through ``compare`` (fuzzing included) at a short
budget, and one HTML report with timings, equivalence and profiles.

By default three that answer within a minute together and show the loop: a C parser against a
pure-Python one (http_parse), four JSON encoders with equivalence notes (json_dumps), and a C++
program whose streaming variant is caught NOT EQUIVALENT and profiled with perf (cpp_json_scan,
when g++ is here). ``--all`` runs every built-in; names choose some.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_FAILURES,
    EXIT_OK,
    UsageError,
    add_verb,
    check_outputs,
    exit_code,
    output_option,
    profile_option,
    resolve_benchmark,
    say,
    timing_options,
    timing_settings,
    write_report,
)

if TYPE_CHECKING:
    from rich.console import Console

# Timing seconds per built-in (no check or fuzzing job may outlast them either), and values per
# worker: the intervals come from rounds (fresh workers), so fewer values per worker give more
# rounds in a short budget (a 149 ms call, as crypto_aes's pure-Python AES, took the whole budget
# in one round of 20 values).
DEMO_MAX_TIME = 5.0
DEMO_VALUES = 5
DEMO_PRECISION = 0.02
DEMO_REPORT = "perflab-demo.html"
DEMO_FUZZ_EXAMPLES = 25  # generated inputs per contender: enough to show fuzzing, quick enough for a demo
DEMO_SAMPLES = 400  # profile samples per side: a demo's flame graph, not a precise attribution
DEMO_ROUNDS = 3
# Each built-in on its first declared case: every round of timing starts one worker per contender
# and case, so a short budget spread over every case measured none of them (seen at 3 s).
DEMO_CASES = 1
DEMO_DEFAULT = ("http_parse", "json_dumps", "cpp_json_scan")
# Whole processes of a few ms are noisy: in a short budget, three contenders get the rounds that
# five do not (the whole scan, its memchr variant, and the streaming bug it must catch).
DEMO_CONTENDERS = {"cpp_json_scan": ["simple", "fast", "fast_chunks_forgetful"]}


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "demo",
        "run the built-in case studies at a short budget and write one HTML report (timings, equivalence, profiles)",
        "perflab demo",
        "perflab demo --all --html demo.html",
        "perflab demo uuids json_loads --max-time 20",
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"built-ins to run (see perflab list; default: {', '.join(DEMO_DEFAULT)})",
    )
    parser.add_argument("--all", action="store_true", help="run every built-in (a few minutes)")
    timing_options(parser, max_time=DEMO_MAX_TIME, precision=DEMO_PRECISION, values=DEMO_VALUES)
    output_option(
        parser, "--html", f"the report of every built-in run, with profiles; default ./{DEMO_REPORT}", DEMO_REPORT
    )
    profile_option(parser, True, "default: on; --no-profile: timings and equivalence only")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab import builtins
    from perflab.measure import ab_test
    from perflab.profile.settings import ProfileSettings
    from perflab.profile.side_profiles import Profiler, fastest_of_first_case
    from perflab.render.html import report
    from perflab.render.terminal import results as results_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.render.terminal.progress import LiveProgress

    chosen = _chosen(args)
    check_outputs(args, "--html")
    settings = timing_settings(args)
    sections, worst = [], EXIT_OK
    for name in chosen:
        missing = builtins.missing_toolchain(name)
        if missing:
            say(err, f"perflab demo: {name} skipped: it is built with {missing}, which is not installed")
            continue
        err.print(f"[bold]perflab demo:[/] {name} ({builtins.summary(name)})")
        hook = (
            Profiler(
                ProfileSettings(
                    samples=DEMO_SAMPLES, min_runs=DEMO_ROUNDS, adaptive_rounds=False, timeout=args.timeout
                ),
                pick=fastest_of_first_case,
                on_progress=lambda message: say(err, message),
            )
            if args.profile
            else None
        )
        request = ab_test.Request(
            resolve_benchmark(name),
            settings,
            fuzz_examples=DEMO_FUZZ_EXAMPLES,
            case_limit=DEMO_CASES,
            contenders=DEMO_CONTENDERS.get(name),
            after_timing=hook,
        )
        try:
            with LiveProgress(err, settings.max_time, settings.precision) as progress:
                result = ab_test.compare(request, progress)
        except ab_test.CompareError as error:
            say(err, f"perflab demo: {name}: {error}")
            worst = max(worst, EXIT_FAILURES)
            continue
        results_terminal.render(result, stdout_console(), compact=True)  # the report holds the rest
        # A contender found not equivalent is what the demo is for (the report shows it); only
        # something that failed to run makes the demo fail.
        if result.interrupted or any(cell.error for cell in result.cells):
            worst = max(worst, exit_code(result, err, allow_skipped=True))
        notes = (
            [
                f"profiled: the reference and the fastest equivalent contender of one case, "
                f"{DEMO_SAMPLES} samples each in {DEMO_ROUNDS} alternating rounds (a demo budget)"
            ]
            + hook.notes
            if hook
            else ["not profiled (--no-profile)"]
        )
        sections.append(report.Section(result, hook.profiles if hook else [], notes))
        if result.interrupted or (hook and hook.interrupted):
            break
    if sections:
        page = report.render(
            sections,
            "perflab demo: the built-in case studies",
            [
                f"Short budget: --max-time {settings.max_time:g} s per benchmark, precision target "
                f"{settings.precision:.0%}, the first declared case of each, {DEMO_FUZZ_EXAMPLES} generated "
                "inputs per contender; "
                "run perflab compare NAME --html for a full report"
                + ("." if args.all else ", perflab demo --all for every built-in.")
            ],
        )
        write_report(args.html, page, err)
    return worst


def _chosen(args: argparse.Namespace) -> list[str]:
    """The built-ins to run: the names given (checked), every one with --all, else DEMO_DEFAULT."""
    from perflab import builtins

    known = builtins.names()
    if args.all and args.names:
        raise UsageError("demo: give built-in names or --all, not both")
    unknown = [name for name in args.names if name not in known]
    if unknown:
        raise UsageError(f"demo NAME {unknown[0]!r}: no such built-in; choose from {', '.join(known)}")
    return known if args.all else list(dict.fromkeys(args.names)) or list(DEMO_DEFAULT)
