"""``perflab cache``: the builds of compiled revisions (perflab.measure.builds), listed and pruned."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support.options import EXIT_OK, UsageError, add_verb, say
from perflab.option_types import size

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "cache",
        "the environments compare --rev, check and bisect built for compiled revisions: list them, prune them",
        "perflab cache                  # every build, its revision, command, size and last use",
        "perflab cache --max-size 2G    # remove the least recently used builds down to 2 GiB",
        "perflab cache --prune          # remove every build, failed ones too",
    )
    pruning = parser.add_mutually_exclusive_group()
    pruning.add_argument("--prune", action="store_true", help="remove every build (failed ones too)")
    pruning.add_argument(
        "--max-size",
        type=size,
        metavar="SIZE",
        help="remove failed builds, then the least recently used ones, until the rest fit in SIZE (e.g. 500M, 2G; new builds "
        "prune to $PERFLAB_BUILD_CACHE_SIZE, default 10G)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.measure import builds
    from perflab.measure.worktrees import RevisionError
    from perflab.render.terminal import cache as cache_terminal
    from perflab.render.terminal.console import stdout_console

    if args.prune or args.max_size is not None:
        removed = builds.prune(0 if args.prune else args.max_size)
        say(err, f"removed {len(removed)} build(s) from {builds.cache_folder()}")
    try:
        limit = builds.limit()
    except RevisionError as error:
        raise UsageError(str(error)) from None
    cache_terminal.render(builds.entries(), builds.failed(), builds.cache_folder(), limit, stdout_console())
    return EXIT_OK
