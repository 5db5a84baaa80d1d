"""The ``perflab`` command line: one module per verb (or small family of verbs), each with
``register(verbs)`` adding its parser and a handler ``run(args, err) -> exit code``; what they
share is in perflab.cli.common. Verb modules import the library lazily, where it is used, so that
``perflab --help`` starts fast.

Exit codes: 0 all measured and equivalent; 1 a contender failed, was not equivalent, or a case
could not be measured; 2 bad input (file, name, option); 130 interrupted (results still written).
"""

from __future__ import annotations

import argparse

from rich.console import Console

from perflab import __version__
from perflab.cli import bisect, check, compare, demo, diff, history, listing, profile, publish, run, serve, store_io
from perflab.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, UsageError, examples_text, say
from perflab.spec import BenchmarkFileError

# In the order ``perflab --help`` lists them.
REGISTER = (run.register, compare.register, bisect.register, demo.register, listing.register,
            history.register, check.register, store_io.register_import, store_io.register_export,
            profile.register, profile.register_merge, diff.register, serve.register, publish.register)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    err = Console(stderr=True, highlight=False)
    try:
        return args.handler(args, err)
    except (UsageError, BenchmarkFileError) as error:
        say(err, f"perflab: error: {error}")  # one line, even in narrow logs
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        err.print("perflab: interrupted")
        return EXIT_INTERRUPTED


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="perflab", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A performance lab for Python: measure, compare alternatives, prove equivalence.",
        epilog=examples_text("perflab run bench.py", "perflab run json_dumps --case NESTED",
                             "perflab list", "perflab demo"))
    top.add_argument("--version", action="version", version=f"perflab {__version__}")
    verbs = top.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for register in REGISTER:
        register(verbs)
    return top
