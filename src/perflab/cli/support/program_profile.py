"""``perflab profile -- COMMAND`` and ``perflab profile --pid N``: whole-program profiles.

The profile goes to the same views as a benchmark's (terminal tables, --html, --json for merge and
diff, --what-if); in wall mode a table of waiting time follows. perflab exits with the program's
exit status when it is not 0, else with perflab's own.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from perflab.cli.support.options import UsageError, say
from perflab.option_types import seconds, whole_number

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.profile.session import ProfileOutcome


class CommandAfterDashes(argparse.ArgumentParser):
    """A verb's parser that takes everything after the first ``--`` as a command to run, whole
    (its own options included), into ``args.command``; [] when there is no ``--``."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        arguments = list(args or [])
        command: list[str] = []
        if "--" in arguments:
            position = arguments.index("--")
            arguments, command = arguments[:position], arguments[position + 1 :]
        parsed, extras = super().parse_known_args(arguments, namespace)
        parsed.command = command
        return parsed, extras


def takes_command(parser: argparse.ArgumentParser) -> None:
    """Make a verb's parser (from add_verb) one that takes ``-- COMMAND``."""
    parser.__class__ = CommandAfterDashes  # argparse offers no other way to choose a subparser's class


def program_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("whole programs (perflab profile -- COMMAND, perflab profile --pid N)")
    group.add_argument("--pid", type=whole_number(1), metavar="N", help="profile the running process N")
    group.add_argument(
        "--duration",
        type=seconds,
        metavar="SECONDS",
        help="with --pid: seconds to sample (default: until it exits or Ctrl-C)",
    )
    group.add_argument(
        "--gil",
        action="store_true",
        help="only samples of threads holding the GIL (py-spy --gil): where the GIL is spent",
    )
    group.add_argument(
        "--subprocesses", action="store_true", help="also sample the program's child processes (py-spy --subprocesses)"
    )


def sampling(args: argparse.Namespace) -> dict[str, Any]:
    """The sampler's settings that a benchmark's and a program's profile share."""
    return {
        "rate": args.rate,
        "native": args.native,
        "mode": args.mode,
        "sampler": args.sampler,
        "blocking": args.blocking,
    }


def inputs_of(command: Sequence[str]) -> list[str]:
    """The files a command reads that an output must not overwrite: the program (a script), or the command."""
    from perflab.profile.program import ProgramError, python_command

    try:
        program = python_command(command) if command else None
    except ProgramError:
        return []  # refused with its reason when profiled
    if program is None:
        return list(command[:1])
    return [] if program.target[0] == "-m" else [program.target[0]]


def is_program(args: argparse.Namespace) -> bool:
    return bool(args.command) or args.pid is not None


def run(args: argparse.Namespace, err: Console, report: Callable[[ProfileOutcome, Console], int]) -> int:
    """Profile the command or process; ``report(outcome, err) -> exit code`` shows and writes it."""
    from perflab.profile.program import ProgramError, ProgramSettings, profile_command, profile_pid, python_command
    from perflab.profile.shares import frame_shares
    from perflab.profile.suggestions import suggest
    from perflab.render.terminal import suggestions, waiting
    from perflab.render.terminal.console import stdout_console

    if args.benchmark is not None:
        raise UsageError(
            f"a benchmark ({args.benchmark}) and a program (-- COMMAND or --pid) were both given: profile one"
        )
    if args.command and args.pid is not None:
        raise UsageError("-- COMMAND and --pid were both given: profile one")
    if args.gil and (args.mode == "wall" or args.sampler == "inprocess"):
        raise UsageError("--gil needs py-spy in cpu mode: a thread waiting for the GIL does not hold it")
    if args.duration is not None and args.pid is None:
        raise UsageError("--duration is for --pid; a command is profiled until it exits")
    settings = ProgramSettings(
        **sampling(args),
        subprocesses=args.subprocesses,
        gil=args.gil,
        runs=args.runs or 1,
        duration=args.duration,
    )
    try:
        if args.pid is not None:
            say(err, f"profiling process {args.pid} ...")
            result = profile_pid(args.pid, settings)
        else:
            say(err, f"profiling {' '.join(args.command)} ...")
            result = profile_command(args.command, settings, on_run=lambda message: say(err, f"  {message}"))
    except ProgramError as error:
        raise UsageError(str(error)) from None
    code = report(result.outcome, err)
    profile = result.outcome.profile
    if profile.runs:
        if args.mode == "wall":
            waiting.render(profile, stdout_console(), args.top)
        isolatable = args.command if args.command and python_command(args.command) else ()
        suggestions.render(suggest(frame_shares(profile.runs)), stdout_console(), isolatable)
    if result.exit_status:
        say(err, f"perflab: the program exited with status {result.exit_status}")
        return result.exit_status
    return code
