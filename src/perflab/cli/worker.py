"""``perflab worker``: take queued benchmark jobs one at a time and store their results."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.submit import checked_label
from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    db_path,
    deprecated_alias,
    label_option,
    require_team_extra,
    store_options,
)
from perflab.option_types import seconds

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "worker",
        "run queued benchmark jobs on this machine, one at a time (docs/team.md)",
        "perflab worker --db postgresql://perf@db.example.org/perflab --label quiet",
    )
    label_option(parser)
    parser.add_argument(
        "--cache",
        metavar="DIR",
        default=str(Path.home() / ".cache" / "perflab" / "worker"),
        help="where clones of the jobs' repositories are kept (default: ~/.cache/perflab/worker)",
    )
    parser.add_argument(
        "--heartbeat",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="heartbeat interval; a worker silent for 3 heartbeats has its job run elsewhere (default: 10)",
    )
    parser.add_argument("--worker-name", help="this worker's name in the queue (default: the host name)")
    deprecated_alias(parser, "--name", "--worker-name")
    store_options(parser, saves=False, of_benchmark=False)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    require_team_extra("worker")
    import platform

    from perflab.queue import tasks
    from perflab.queue.execute import Worker
    from perflab.results.store import StoreError

    url = str(db_path(args, None))
    label = checked_label(args.label)
    if not 0.1 <= args.heartbeat <= 3600:
        raise UsageError(f"--heartbeat {args.heartbeat:g}: give 0.1 to 3600 seconds")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    for handler in logging.getLogger().handlers:  # a job's names and errors are the submitter's text
        handler.setFormatter(_OneLine("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.getLogger("perflab.worker").setLevel(logging.INFO)
    worker = Worker(url, Path(args.cache), platform.node())
    try:
        tasks.run_worker(url, label, worker, args.heartbeat, args.worker_name or platform.node())
    except (tasks.QueueError, StoreError) as error:
        raise UsageError(str(error)) from None
    return EXIT_OK


class _OneLine(logging.Formatter):
    """Each log record's message on one line, control characters shown (perflab.render.printable)."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        from perflab.render.printable import one_line

        return one_line(super().formatMessage(record))
