"""``perflab submit``: queue benchmark jobs for ``perflab worker`` processes on quiet machines."""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from perflab.cli import compare
from perflab.cli import run as run_verb
from perflab.cli.support.options import (
    EXIT_FAILURES,
    EXIT_OK,
    UsageError,
    add_verb,
    build_choice,
    build_options,
    db_path,
    label_option,
    python_option,
    require_team_extra,
    resolve_benchmark,
    rev_option,
    say,
    store_errors_are_bad_input,
    store_options,
)
from perflab.option_types import seconds

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.queue.job_spec import JobSpec

POLL_SECONDS = 2.0


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "submit",
        "queue benchmark jobs for perflab workers (one job per benchmark; docs/team.md)",
        "perflab submit bench.py --db postgresql://perf@db.example.org/perflab --label quiet",
        "perflab submit bench.py --rev main --rev HEAD --label quiet",
        "perflab submit json_dumps uuids --options '--max-time 30'",
    )
    parser.add_argument(
        "benchmarks",
        nargs="+",
        metavar="BENCH",
        help="benchmark files or asv suites (asv.conf.json, the directory holding it, or the benchmark "
        "directory) in a git repository, or built-ins",
    )
    rev_option(parser)
    build_options(parser)
    python_option(parser)
    label_option(parser)
    parser.add_argument(
        "--repo",
        metavar="PATH|URL",
        help="where workers clone the code from (default: the benchmark's repository on this machine)",
    )
    parser.add_argument(
        "--options",
        default="",
        metavar="'OPTS'",
        help="more perflab run/compare options, quoted (one flag alone: --options=--flag)",
    )
    parser.add_argument(
        "--wait",
        type=seconds,
        metavar="SECONDS",
        help="wait up to SECONDS for the jobs to end (CI); exit 1 if one failed or did not end in time",
    )
    store_options(parser, saves=False, of_benchmark=False)
    # A store that cannot be reached (no PostgreSQL there) is one line, while submitting or waiting.
    parser.set_defaults(handler=store_errors_are_bad_input(run))


def run(args: argparse.Namespace, err: Console) -> int:
    require_team_extra("submit")
    from perflab.queue import tasks

    url = str(db_path(args, None))
    label = checked_label(args.label)
    try:
        options = shlex.split(args.options)
    except ValueError as error:
        raise UsageError(f"--options: {error}") from None
    build_choice(args, err, bool(args.rev))  # refused here, not on a worker later
    if args.repo is not None and args.repo.startswith("-"):
        raise UsageError(f"--repo {args.repo}: a repository's path or URL, not an option (prefix ./ to a path)")
    specs = [_spec(name, args, options) for name in args.benchmarks]
    for spec in specs:
        _check_options(spec)
    try:
        job_ids = tasks.submit(url, specs, label)
    except tasks.QueueError as error:
        raise UsageError(str(error)) from None
    for job, spec in zip(job_ids, specs):
        say(err, f"job {job} queued for workers labelled {label}: {spec.title}")
    return EXIT_OK if args.wait is None else _wait(url, job_ids, args.wait, err)


def _wait(url: str, job_ids: list[int], timeout: float, err: Console) -> int:
    """Wait until every job has ended; say how each ended; EXIT_FAILURES unless all succeeded."""
    from perflab.queue import tasks

    deadline = time.monotonic() + timeout
    while True:
        rows = [row for row in tasks.jobs(url) if row.id in job_ids]
        if all(row.status in tasks.ENDED for row in rows) or time.monotonic() > deadline:
            break
        time.sleep(POLL_SECONDS)
    for row in rows:
        outcome = f"run(s) {', '.join(map(str, row.runs))} on {row.host}" if row.runs else row.reason
        say(err, f"job {row.id}: {row.status}" + (f": {outcome}" if outcome else ""))
    return EXIT_OK if all(row.status == "succeeded" for row in rows) else EXIT_FAILURES


class _CheckingParser(argparse.ArgumentParser):
    """A parser that raises the usage error instead of printing it and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"--options: {message}")


def _check_options(spec: JobSpec) -> None:
    """Refuse now, not on a worker later, what `perflab run`/`compare` would refuse."""
    top = _CheckingParser(prog="perflab")
    verbs = top.add_subparsers()
    (compare.register if spec.verb == "compare" else run_verb.register)(verbs)
    from perflab.queue.job_spec import OptionRefused

    try:
        arguments = spec.arguments(spec.benchmark)
    except OptionRefused as error:
        raise UsageError(str(error)) from None
    top.parse_args(arguments)


def checked_label(label: str) -> str:
    if not label or len(label) > 60 or not all(c.isalnum() or c in "-_." for c in label):
        raise UsageError(f"--label {label!r}: use up to 60 letters, digits, '-', '_' or '.'")
    return label


def _spec(name: str, args: argparse.Namespace, options: list[str]) -> JobSpec:
    from perflab import asv_config, builtins, git
    from perflab.option_types import FROM_REVISION
    from perflab.queue.job_spec import JobSpec

    path = Path(name)
    if path.is_dir() and (path / asv_config.CONFIG_NAME).is_file():
        # An asv project: the job runs its asv.conf.json from the project's directory, as asv does
        # (where the suite imports the project from).
        path = path / asv_config.CONFIG_NAME
    if not path.exists():
        if builtins.path_of(name) is None or args.rev:
            raise UsageError(
                f"{name}: no such benchmark file{'' if args.rev else ' or built-in'} (jobs with --rev need a file in a git repository)"
            )
        return JobSpec(name, pythons=args.python or [], options=options)
    resolve_benchmark(str(path))  # a config without its benchmark_dir: one line now, not a failed job later
    root = git.top_level(path.resolve().parent)
    if root is None:
        raise UsageError(f"{name}: not inside a git repository; workers get code as a repository and a commit")
    head = git.resolve_commit(root, "HEAD")
    if head is None:
        raise UsageError(f"{root}: has no commit yet; commit the benchmark first")
    relative = path.resolve().relative_to(root).as_posix()
    if git.file_at(root, head, relative) is None:  # workers get the benchmark from the repository
        raise UsageError(
            f"{name}: not committed at HEAD ({head[:10]}); a worker reads the benchmark from the repository: "
            f"commit it first (git add {relative} && git commit), then submit"
        )
    if args.benchmark_from_revision and not args.rev:
        raise UsageError("--benchmark-from-revision reads the benchmark at each --rev: give --rev REV twice or more")
    if args.benchmark_from_revision:
        options = [*options, FROM_REVISION]
    revisions = []
    for revision in args.rev or []:
        commit = git.resolve_commit(root, revision)
        if commit is None:
            raise UsageError(f"--rev {revision}: no such revision in {root}")
        revisions.append(commit)
    return JobSpec(
        relative,
        repository=args.repo or str(root),
        commit=head,
        revisions=revisions,
        pythons=args.python or [],
        options=options,
        build=args.build,
        build_command=args.build_command,
        build_spread=args.build_spread,
    )
