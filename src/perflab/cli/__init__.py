"""The ``perflab`` command line: one module per verb (or small family of verbs), each with
``register(verbs)`` adding its parser and a handler ``run(args, err) -> exit code``; what they
share is in perflab.cli.support.options. Verb modules import the library lazily, where it is used, so that
``perflab --help`` starts fast.

Exit codes: 0 all measured and equivalent; 1 a contender failed, was not equivalent, or a case
could not be measured; 2 bad input (file, name, option); 130 interrupted (results still written),
143 terminated by SIGTERM (the same).
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from perflab import __version__
from perflab.cli import (
    bisect,
    cache,
    check,
    compare,
    demo,
    diff,
    export,
    history,
    import_,
    isolate,
    jobs,
    mcp,
    merge,
    profile,
    publish,
    qualify,
    run,
    serve,
    submit,
    worker,
)
from perflab.cli import list as list_verb
from perflab.cli.support.options import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    OutputError,
    UsageError,
    examples_text,
    say,
)

# In the order ``perflab --help`` lists them.
REGISTER = (
    run.register,
    compare.register,
    bisect.register,
    demo.register,
    list_verb.register,
    history.register,
    check.register,
    qualify.register,
    import_.register,
    export.register,
    profile.register,
    merge.register,
    diff.register,
    isolate.register,
    serve.register,
    publish.register,
    submit.register,
    worker.register,
    jobs.register,
    mcp.register,
    cache.register,
)


def main(argv: list[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    # Imported once parsed: --help, --version and usage errors need neither.
    from perflab.bench.spec import BenchmarkFileError
    from perflab.cli.support import project_defaults
    from perflab.render.terminal.console import stderr_console

    err = stderr_console()
    terminated = _stop_on_sigterm()
    try:
        # The project's [tool.perflab] defaults, under what the command line says.
        project_defaults.apply(top, args.verb, Path.cwd())
        args = top.parse_args(argv)
        code = args.handler(args, err)
    except (UsageError, BenchmarkFileError, OutputError) as error:
        say(err, f"perflab: error: {error}")  # one line, even in narrow logs
        code = EXIT_BAD_INPUT
    except KeyboardInterrupt:
        err.print("perflab: interrupted")
        code = EXIT_INTERRUPTED
    _forget_unhandled_interrupt()  # every Ctrl-C is handled by now, wherever it was caught
    return EXIT_TERMINATED if terminated else code


def _forget_unhandled_interrupt() -> None:
    """CPython (3.11 to 3.13 here) marks a KeyboardInterrupt that passes through ``exec`` of a
    string as unhandled even when it is caught later, and at exit kills itself with SIGINT instead
    of exiting with 130 (a caller sees -2). scipy imports numpy's names through such an ``exec``, so
    Ctrl-C during perflab's start-up often passed through one. An ``exec`` of a string that raises
    nothing clears the mark (CPython resets it at each one)."""
    exec("pass")


def _stop_on_sigterm() -> list[int]:
    """SIGTERM (CI cancelling a job, ``kill``) stops perflab as Ctrl-C does: workers killed,
    worktrees removed, what was measured kept; the exit code is then 143. Returns the list
    the signal is recorded in. Further SIGTERMs while cleaning up are ignored, so that the
    clean-up itself is not cut short."""
    received: list[int] = []

    def stop(signum: int, frame: object) -> None:
        if not received:
            received.append(signum)
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    return received


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="perflab",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A performance lab for Python: measure, compare alternatives, prove equivalence.",
        epilog=examples_text(
            "perflab run bench.py", "perflab run json_dumps --case NESTED", "perflab list", "perflab demo"
        ),
    )
    top.add_argument("--version", action="version", version=f"perflab {__version__}")
    verbs = top.add_subparsers(title="commands", metavar="COMMAND", required=True, dest="verb")
    for register in REGISTER:
        register(verbs)
    return top
