"""The consoles that results and messages are printed on, safe for any name a user chose.

Case, contender, revision and file names, and the messages of user code, are printed as they are,
except control characters: an escape sequence in a name (``ESC[2J`` clears the screen) must never
reach the terminal, so each control character is shown as its visible symbol (``␛``).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from perflab.render.printable import printable


class SafeConsole(Console):
    """A rich Console that shows control characters in printed strings as symbols (styles that
    perflab adds are unaffected: rich writes them after this)."""

    def render_str(self, text: str, *args: Any, **kwargs: Any) -> Text:
        return super().render_str(printable(text), *args, **kwargs)


def stdout_console() -> Console:
    """A console for results: full width in a terminal, 160 columns in logs and CI output."""
    console = SafeConsole()
    return console if console.is_terminal else SafeConsole(width=160)


def stderr_console() -> Console:
    """The console for progress, notes and errors. Outside a terminal (logs, CI, a test's pipe) a
    message stays on one line, however long its paths: rich would otherwise break it at 80
    columns, and a grep for it would miss."""
    console = SafeConsole(stderr=True, highlight=False)
    return console if console.is_terminal else SafeConsole(stderr=True, highlight=False, soft_wrap=True)
