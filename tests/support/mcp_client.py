"""The MCP SDK's own client connected over stdio to ``python -m perflab mcp`` in a subprocess: the
way an AI assistant's host talks to perflab."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

T = TypeVar("T")

# The timing tools' "timing" argument in the tests: QUICK's settings (support.cli),
# with the default minimum of 5 rounds, enough for a verdict.
QUICK_TIMING = {"precision": 50, "max_time": 60, "values": 5, "value_time": 0.002}


def with_server(cwd: Path, talk: Callable[[Client], Awaitable[T]]) -> T:
    """``talk(client)`` with a client connected to a new ``perflab mcp`` started in ``cwd``."""

    async def session() -> T:
        server = StdioServerParameters(command=sys.executable, args=["-m", "perflab", "mcp"], cwd=cwd)
        async with Client(server) as client:
            return await talk(client)

    return anyio.run(session)


def error_text(result: Any) -> str:
    """The one line of a tool error, as the client reads it."""
    assert result.is_error, result
    (content,) = result.content
    return content.text
