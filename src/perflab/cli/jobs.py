"""``perflab jobs``: the queue's jobs (queued, running, done, failed with why); cancel and retry."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    db_path,
    require_team_extra,
    say,
    store_options,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "jobs",
        "list queued, running, done and failed benchmark jobs; cancel or retry one",
        "perflab jobs --db postgresql://perf@db.example.org/perflab",
        "perflab jobs --cancel 12",
        "perflab jobs --retry 12",
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--cancel", type=int, metavar="ID", help="cancel a queued job, or stop a running one")
    action.add_argument("--retry", type=int, metavar="ID", help="queue a failed job again")
    store_options(parser, saves=False, of_benchmark=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    require_team_extra("jobs")
    from rich.table import Table
    from rich.text import Text

    from perflab.queue import tasks
    from perflab.render.terminal.console import stdout_console
    from perflab.results.store import StoreError

    url = str(db_path(args, None))
    try:
        if args.cancel is not None:
            done = tasks.cancel(url, args.cancel)
            say(err, f"job {args.cancel}: {'cancelled' if done else 'not queued or running; nothing to cancel'}")
            return EXIT_OK
        if args.retry is not None:
            tasks.retry(url, args.retry)
            say(err, f"job {args.retry}: queued again")
            return EXIT_OK
        rows = tasks.jobs(url)
    except (tasks.QueueError, StoreError) as error:
        raise UsageError(str(error)) from None
    # tries: attempts begun and ended (a killed worker's attempt counts once it is taken back).
    table = Table("job", "label", "status", "tries", "what", "result")
    for row in rows:
        result = f"run(s) {', '.join(map(str, row.runs))} on {row.host}" if row.runs else row.reason
        # Text, not markup: titles and reasons hold user strings (file names, error messages).
        table.add_row(
            *(Text(cell) for cell in (str(row.id), row.label, row.status, str(row.attempts), row.spec.title, result))
        )
    stdout_console().print(table)
    return EXIT_OK
