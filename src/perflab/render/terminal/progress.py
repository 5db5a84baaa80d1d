"""The live progress display: what is running and how precise the estimates are so far."""

from __future__ import annotations

import math
import time

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from perflab.measure.runner import Status
from perflab.render.printable import one_line
from perflab.units import format_percent

# Away from a terminal (CI logs), a plain status line at most this often, and on every new phase.
PLAIN_LINE_EVERY = 10.0


class LiveProgress:
    """A one-line status on stderr, redrawn in place; away from a terminal, plain lines now and
    then, so that a CI log shows that something is happening."""

    def __init__(self, console: Console, max_time: float, target: float):
        self.console, self.max_time, self.target = console, max_time, target
        self._live = Live(console=console, transient=True, refresh_per_second=4)
        self._last_plain: tuple[float, str] | None = None

    def __enter__(self) -> LiveProgress:
        if self.console.is_terminal:
            self._live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.console.is_terminal:
            self._live.__exit__(*exc)

    def update(self, status: Status) -> None:
        line = Text.from_markup(one_line(self._describe(status)))  # a name's newline would forge a line
        if self.console.is_terminal:
            self._live.update(line)
            return
        now = time.monotonic()
        last = self._last_plain
        if last is None or last[1] != status.phase or now - last[0] >= PLAIN_LINE_EVERY:
            self._last_plain = (now, status.phase)
            self.console.print(line, soft_wrap=True)

    def _describe(self, status: Status) -> str:
        text = f"[bold]{escape(status.phase)}[/] {escape(status.current)}"
        if status.phase == "timing":
            finite = [p for p in status.precision.values() if math.isfinite(p)]
            worst = f"±{format_percent(max(finite))}" if finite else "—"
            text += (
                f"  round {status.round}  {status.elapsed:.0f}/{self.max_time:g} s"
                f"  worst precision {worst} (target ±{format_percent(self.target)})"
            )
        return text
