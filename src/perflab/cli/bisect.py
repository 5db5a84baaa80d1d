"""``perflab bisect``: the first commit where a benchmark got slower, with the A/B verdict as oracle."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    check_outputs,
    timing_options,
    timing_settings,
    write_output,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "bisect",
        "find the first commit where a benchmark got slower (statistical A/B oracle)",
        "perflab bisect --good v1.0 --bad main bench.py",
        "perflab bisect --good HEAD~64 --bad HEAD bench.py --case NESTED --max-time 30",
    )
    parser.add_argument("benchmark", help="a benchmark file inside the git repository")
    parser.add_argument("--good", required=True, metavar="REV", help="a revision known to be fast")
    parser.add_argument("--bad", required=True, metavar="REV", help="a later revision known to be slow")
    parser.add_argument("--case", metavar="NAME", help="the case to follow (default: the one that regressed most)")
    parser.add_argument("--contender", metavar="NAME", help="the contender to run (default the reference)")
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write the outcome (perflab.bisect/1): first bad commit, "
        "each step's ratio, 95%% CI and certainty, measurements used",
    )
    timing_options(parser, max_time=20.0, precision=0.01)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.measure import bisect
    from perflab.measure.worktrees import RevisionError
    from perflab.render.terminal import bisect as bisect_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.render.terminal.progress import LiveProgress

    path = Path(args.benchmark)
    if not path.is_file():
        raise UsageError(f"{path}: no such benchmark file (bisect needs a file inside a git repository)")
    check_outputs(args, "--json", inputs=(path,))
    settings = timing_settings(args)
    try:
        with LiveProgress(err, settings.max_time, settings.precision) as progress:
            outcome = bisect.bisect(
                path.resolve(), args.good, args.bad, settings, progress, case=args.case, contender=args.contender
            )
    except (bisect.BisectError, RevisionError) as error:
        raise UsageError(str(error)) from None
    bisect_terminal.render(outcome, stdout_console())
    if args.json:
        write_output(args.json, json.dumps(outcome.to_json(), indent=1) + "\n", "outcome", err)
    return EXIT_OK
