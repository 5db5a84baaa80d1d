"""``perflab mcp``: the Model Context Protocol server for AI assistants, on stdio (docs/mcp.md)."""

from __future__ import annotations

import argparse
import importlib.util
from typing import TYPE_CHECKING

from perflab.cli.support.options import EXIT_OK, UsageError, add_verb

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "mcp",
        "serve perflab's tools to an AI assistant over MCP (stdio): run, compare, profile, check, isolate, "
        "verify_candidate (needs perflab[mcp])",
        "perflab mcp                         # started by the MCP client (docs/mcp.md)",
        "claude mcp add perflab -- perflab mcp",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    if importlib.util.find_spec("mcp") is None:
        raise UsageError("perflab mcp needs the mcp package: pip install 'perflab[mcp]'")
    from perflab.agent.server import server

    server.run("stdio")
    return EXIT_OK
