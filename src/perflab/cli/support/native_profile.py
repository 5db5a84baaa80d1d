"""``perflab profile --native-command CMD`` and ``perflab profile bench.py --contender C`` for a
command contender: the program sampled by Linux perf (perflab.profile.native_perf)."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

from perflab.cli.support.options import UsageError, say

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.bench.spec import Benchmark
    from perflab.profile.native_perf import NativeSettings
    from perflab.profile.session import ProfileOutcome


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("native programs (Linux perf)")
    group.add_argument(
        "--native-command",
        metavar="CMD",
        help="profile this program (no shell) with perf record -e cpu-clock instead of a benchmark's operation",
    )
    group.add_argument(
        "--call-graph",
        choices=("dwarf", "fp"),
        default="dwarf",
        help="how perf unwinds native stacks: dwarf (default, any build) or fp (builds with frame pointers)",
    )


def profile_command_line(args: argparse.Namespace, err: Console) -> ProfileOutcome:
    """``--native-command CMD``."""
    try:
        argv = shlex.split(args.native_command)
    except ValueError as error:
        raise UsageError(f"--native-command {args.native_command!r}: {error}") from None
    if not argv:
        raise UsageError("--native-command: an empty command")
    subject = {"benchmark": "command", "contender": args.native_command}
    return _profile(argv, None, settings_from(args), err, subject)


def settings_from(args: argparse.Namespace) -> NativeSettings:
    """``perflab profile``'s sampling options, for perf."""
    from perflab.profile.native_perf import NativeSettings

    # An option not given (None) keeps perf's default from NativeSettings: its full sample budget
    # (perf does not stop the program), its runs and its rate.
    given = {"samples": args.samples, "runs": args.runs, "rate": args.rate}
    return NativeSettings(
        **{name: value for name, value in given.items() if value is not None},
        call_graph=args.call_graph,
        max_time=args.max_time,
        timeout=args.timeout,
    )


def profile_contender(
    benchmark: Benchmark, case: str, contender: str, settings: NativeSettings, err: Console
) -> ProfileOutcome:
    """A command contender of a benchmark file on one of its cases."""
    from perflab.profile.native_perf import contender_command

    command = contender_command(benchmark, case, contender)
    subject = {"benchmark": benchmark.name, "case": case, "contender": contender}
    return _profile(command.argv, command.stdin, settings, err, subject, command.env, command.cwd)


def _profile(
    argv: list[str],
    stdin: str | None,
    settings: NativeSettings,
    err: Console,
    subject: dict[str, str],
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> ProfileOutcome:
    from perflab.profile.native_perf import NativeProfilerUnavailable, ProgramStopped, profile_command
    from perflab.profile.session import ProfileOutcome

    say(err, f"profiling {shlex.join(argv)} with perf ...")
    try:
        profile = profile_command(argv, settings, stdin, env, cwd, on_run=lambda message: say(err, f"  {message}"))
    except NativeProfilerUnavailable as error:
        raise UsageError(str(error)) from None
    except ProgramStopped as stopped:
        stopped.profile.metadata.update(subject)
        named = "/".join(subject[key] for key in ("case", "contender") if key in subject)
        return ProfileOutcome(stopped.profile, error=f"{named}: {stopped}")
    profile.metadata.update(subject)
    return ProfileOutcome(profile)
