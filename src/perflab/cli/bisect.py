"""``perflab bisect``: the first commit where a benchmark got slower, with the A/B verdict as oracle."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    UsageError,
    add_verb,
    benchmark_from_revision_option,
    build_choice,
    build_options,
    case_option,
    check_outputs,
    contender_option,
    from_revision,
    one_name,
    output_option,
    resolve_benchmark,
    say,
    timing_options,
    timing_settings,
    write_if_asked,
    write_outputs,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "bisect",
        "find the first commit where a benchmark got slower (statistical A/B oracle)",
        "perflab bisect --good v1.0 --bad main bench.py",
        "perflab bisect --good HEAD~64 --bad HEAD bench.py --case NESTED --max-time 30  # each measurement's budget",
        "perflab bisect --good v1.0 --bad main /tmp/new_bench.py     # today's benchmark on each commit's code",
        "perflab bisect --good v1.0 --bad main bench.py --markdown bisect.md --json bisect.json",
    )
    parser.add_argument(
        "benchmark",
        help="a benchmark file (run on each commit's code; untracked or outside the repository is fine), "
        "or an asv suite (its benchmark directory or asv.conf.json)",
    )
    parser.add_argument("--good", required=True, metavar="REV", help="a revision known to be fast")
    parser.add_argument("--bad", required=True, metavar="REV", help="a later revision known to be slow")
    case_option(parser, "bisect follows one; default: the one that regressed most")
    contender_option(parser, "bisect runs one; default: the reference")
    output_option(
        parser,
        "--json",
        "perflab.bisect/1: first bad commit, each step's ratio, 95%% CI and certainty, measurements used",
    )
    output_option(parser, "--markdown", "first bad commit and each step's ratio to good")
    output_option(parser, "--html", "first bad commit and each step's ratio to good, as a page")
    build_options(parser, spread=False)
    benchmark_from_revision_option(parser)
    timing_options(parser, max_time=20.0, precision=0.01)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.measure import bisect
    from perflab.measure.worktrees import RevisionError
    from perflab.render import markdown
    from perflab.render.html import gate_pages
    from perflab.render.terminal import bisect as bisect_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.render.terminal.progress import LiveProgress

    if not Path(args.benchmark).exists():  # (not a built-in's name: bisect measures a repository's commits)
        raise UsageError(f"{args.benchmark}: no such benchmark file (bisect runs a file on each commit's code)")
    path = resolve_benchmark(args.benchmark)
    check_outputs(args, "--json", "--markdown", "--html", inputs=(path,))
    case, contender = one_name(args.case, "--case"), one_name(args.contender, "--contender")
    settings = timing_settings(args)

    def on_step(what: str, budget: float) -> None:  # each measurement's own budget, said as such
        progress.max_time = budget
        say(err, f"{what}: --max-time {budget:g} s for this measurement")

    try:
        with LiveProgress(err, settings.max_time, settings.precision) as progress:
            outcome = bisect.bisect(
                path.resolve(),
                args.good,
                args.bad,
                settings,
                progress,
                case=case,
                contender=contender,
                build=build_choice(args, err),
                from_revision=from_revision(args),
                on_step=on_step,
            )
    except (bisect.BisectError, RevisionError) as error:
        raise UsageError(str(error)) from None
    bisect_terminal.render(outcome, stdout_console())
    failed = write_outputs(
        {
            "--json": lambda: write_if_asked(
                args.json, lambda: json.dumps(outcome.to_json(), indent=1) + "\n", "outcome", err
            ),
            "--markdown": lambda: write_if_asked(
                args.markdown, lambda: markdown.render_bisect(outcome), "summary", err
            ),
            "--html": lambda: write_if_asked(args.html, lambda: gate_pages.render_bisect(outcome), "summary", err),
        }
    )
    for problem in failed.values():
        say(err, f"perflab: error: {problem}")
    return EXIT_BAD_INPUT if failed else EXIT_OK
