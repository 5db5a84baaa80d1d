"""The consoles that results and messages are printed on, safe for any name a user chose.

Case, contender, revision and file names, and the messages of user code, are printed as they are,
except control characters: an escape sequence in a name (``ESC[2J`` clears the screen) must never
reach the terminal, so each control character is shown as its visible symbol (``␛``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from perflab.render.printable import printable


class SafeConsole(Console):
    """A rich Console that shows control characters as symbols in whatever it prints: strings,
    Text objects and table cells alike, since it filters the text of the rendered segments (the
    styles perflab adds, and the cursor controls of a live display, are not text and are unaffected)."""

    def render_str(self, text: str, *args: Any, **kwargs: Any) -> Text:
        return super().render_str(printable(text), *args, **kwargs)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (segment if segment.control else Segment(printable(segment.text), segment.style) for segment in buffer)
        return super()._render_buffer(safe)


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
