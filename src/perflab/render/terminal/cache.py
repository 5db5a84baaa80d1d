"""The terminal view of the build cache: one row per build, then its size against the limit."""

from __future__ import annotations

import datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.measure.builds import Entry
from perflab.units import counted, format_bytes


def render(entries: list[Entry], failed: list[Entry], folder: Path, limit: int, console: Console) -> None:
    if entries:
        table = Table("project", "revision", "build command", "python", "build time", "size", "last used")
        for entry in entries:
            record = entry.record
            table.add_row(
                escape(Path(record.get("repository", "?")).name),
                escape(f"{record.get('revision', '?')} ({(record.get('commit') or record.get('tree', '?'))[:8]})"),
                escape(str(record.get("command", "?"))),
                escape(str(record.get("python", "?"))),
                f"{record.get('build_seconds', 0):.1f} s",
                format_bytes(entry.size),
                datetime.datetime.fromtimestamp(entry.used).strftime("%Y-%m-%d %H:%M"),
            )
        console.print(table)
    total = sum(entry.size for entry in entries + failed)
    leftovers = f" and {counted(len(failed), 'failed build')} (kept for the build log)" if failed else ""
    console.print(
        f"{counted(len(entries), 'build')}{leftovers}, {format_bytes(total)} of {format_bytes(limit)} "
        f"(PERFLAB_BUILD_CACHE_SIZE) in {escape(str(folder))}"
    )
