"""The terminal view of waiting time in a wall-clock profile of a whole program.

A wall-clock sampler (py-spy --idle) sees threads that run and threads that wait; a second sampler
at the same rate on the same process sees running threads only. Per function, its wall-clock self
samples minus its on-CPU self samples are the samples in which it waited (off CPU: sleeping, I/O,
a lock, the GIL). Both counts are Poisson, so the difference's 95% interval is
+-1.96 x sqrt(wall + on CPU) samples.
"""

from __future__ import annotations

import math
from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.processors import OPERATION_SELF

Z95 = 1.96


def waiting_by_function(profile: Profile) -> tuple[int, int, list[tuple[str, int, int]]]:
    """(wall samples, on-CPU samples, [(frame, wall self samples, on-CPU self samples)], most waiting first)."""
    wall = Counter(stack[-1] if stack else OPERATION_SELF for stack in profile.merged().elements())
    on_cpu = Counter(profile.metadata.get("on_cpu_self") or {})
    total = sum(wall.values())
    cpu_total = sum(info.get("on_cpu_samples", 0) for info in profile.metadata.get("run_info", []))
    rows = [(frame, count, on_cpu.get(frame, 0)) for frame, count in wall.items()]
    rows.sort(key=lambda row: -(row[1] - row[2]))
    return total, cpu_total, rows


def render(profile: Profile, console: Console, top: int = 15) -> None:
    if not any("on_cpu_samples" in info for info in profile.metadata.get("run_info", [])):
        console.print(
            "[yellow]note[/] waiting time is not told apart from CPU time in this profile "
            "(it needs py-spy --nonblocking: not with --native or --blocking)",
            highlight=False,
        )
        return
    total, cpu_total, rows = waiting_by_function(profile)
    if not total:
        return
    waited = total - cpu_total
    half = Z95 * math.sqrt(total + cpu_total) / total
    console.print(
        f"[bold]waiting[/]: {waited / total:.1%} ± {half:.1%} of the wall-clock samples were of threads "
        f"waiting (off CPU), {cpu_total / total:.1%} on CPU",
        highlight=False,
    )
    table = Table(
        title="top functions by waiting share (wall-clock self minus on-CPU self samples)", title_justify="left"
    )
    for column in ("waiting [95% CI]", "wall self", "on CPU self"):
        table.add_column(column, justify="right")
    table.add_column("function", justify="left")
    table.add_column("where", justify="left")
    for frame, wall, cpu in rows[:top]:
        if wall - cpu <= 0:
            break
        margin = Z95 * math.sqrt(wall + cpu) / total
        share = (wall - cpu) / total
        parsed = parse_frame(frame)
        table.add_row(
            f"{share:.1%} [{max(share - margin, 0):.1%}, {share + margin:.1%}]",
            f"{wall / total:.1%}",
            f"{cpu / total:.1%}",
            escape(parsed.name),
            f"[dim]{escape(parsed.location)}[/]",
        )
    console.print(table)
