"""``perflab list``: the built-in benchmarks."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support.options import EXIT_OK, add_verb

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(verbs, "list", "list the built-in benchmarks", "perflab list")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from rich.markup import escape

    from perflab import builtins
    from perflab.render.terminal.console import stdout_console

    out = stdout_console()
    for name in builtins.names():
        out.print(f"[bold]{escape(name):<24}[/] {escape(builtins.summary(name))}", highlight=False)
    return EXIT_OK
