"""The console that results are printed on."""

from __future__ import annotations

from rich.console import Console


def stdout_console() -> Console:
    """A console for results: full width in a terminal, 160 columns in logs and CI output."""
    console = Console()
    return console if console.is_terminal else Console(width=160)
