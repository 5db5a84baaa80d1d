"""The live progress display: what is running and how precise the estimates are so far."""

from __future__ import annotations

import math

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from perflab.measure.runner import Status


class LiveProgress:
    """A one-line status on stderr, redrawn in place (printed as plain lines when not a terminal)."""

    def __init__(self, console: Console, max_time: float, target: float):
        self.console, self.max_time, self.target = console, max_time, target
        self._live = Live(console=console, transient=True, refresh_per_second=4)

    def __enter__(self) -> LiveProgress:
        if self.console.is_terminal:
            self._live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.console.is_terminal:
            self._live.__exit__(*exc)

    def update(self, status: Status) -> None:
        line = Text.from_markup(self._describe(status))
        if self.console.is_terminal:
            self._live.update(line)

    def _describe(self, status: Status) -> str:
        text = f"[bold]{escape(status.phase)}[/] {escape(status.current)}"
        if status.phase == "timing":
            finite = [p for p in status.precision.values() if math.isfinite(p)]
            worst = f"±{max(finite):.1%}" if finite else "—"
            text += (f"  round {status.round}  {status.elapsed:.0f}/{self.max_time:g} s"
                     f"  worst precision {worst} (target ±{self.target:.1%})")
        return text
