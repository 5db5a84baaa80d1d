"""The terminal view of suggestions for a profile's hot frames (perflab.profile.suggestions)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from perflab.profile.frames import parse_frame
from perflab.profile.suggestions import Hit


def render(hits: Sequence[Hit], console: Console, command: Sequence[str] = ()) -> None:
    if not hits:
        return
    console.print("[bold]known alternatives[/] for hot frames (candidates: perflab proves them, equivalence first)")
    for hit in hits:
        s = hit.suggestion
        frame = parse_frame(hit.frame)
        console.print(
            f"  {hit.share:.0%} in {escape(s.topic)} ({escape(frame.name)}): try {escape(s.alternatives)}; "
            f"measured by [cyan]perflab run {escape(s.proven_by)}[/]",
            highlight=False,
        )
        if s.function and command:
            console.print(
                f"    with this program's inputs: [cyan]perflab isolate --function {escape(s.function)} --suggest "
                f"-- {escape(' '.join(command))}[/]",
                highlight=False,
            )
