"""The terminal view of a profile: top frames by self and by total share, with intervals; the hottest path."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.profile.calltree import build_tree, hottest_path
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile, describe_sampling
from perflab.profile.shares import FrameShare, frame_shares
from perflab.profile.whatif import WhatIf
from perflab.results.quantities import Interval
from perflab.units import counted, format_time, format_times_factor

DEFAULT_TOP = 15


def render(
    profile: Profile,
    console: Console,
    what_ifs: Sequence[WhatIf] = (),
    notes: Sequence[str] = (),
    top: int = DEFAULT_TOP,
    shares: list[FrameShare] | None = None,
) -> None:
    shares = frame_shares(profile.runs) if shares is None else shares
    console.print(_header(profile), highlight=False)
    if not shares:
        console.print("[yellow]no samples of the operation[/]")
    else:
        by_self = sorted(shares, key=lambda s: (-s.self_samples, s.frame))
        console.print(_table(f"top {min(top, len(shares))} by self share (time in the function itself)", by_self[:top]))
        console.print(
            _table(f"top {min(top, len(shares))} by total share (time in the function and its callees)", shares[:top])
        )
        console.print(_hottest_path(profile))
    for what_if in what_ifs:
        console.print(what_if_line(what_if), highlight=False)
    for note in notes:
        console.print(f"[yellow]note[/] {escape(note)}", highlight=False)


def _header(profile: Profile) -> str:
    m = profile.metadata
    python = m.get("python") or {}
    subject = " / ".join(escape(str(m[key])) for key in ("benchmark", "case", "contender") if m.get(key))
    lines = [
        f"[bold]profile[/] {subject or escape(', '.join(m.get('merged_from', [])) or 'merged profile')}",
        f"  sampler {escape(describe_sampling(m))}; Python {escape(str(python.get('version', '?')))} "
        f"({escape(str(python.get('implementation', '')))}{', debug build' if python.get('debug_build') else ''}"
        f"{', free-threaded' if python.get('free_threaded') else ''})",
        f"  {counted(profile.samples, 'sample')} of the operation in {counted(len(profile.runs), 'run')} (fresh processes)",
    ]
    if m.get("sampler_reason"):
        lines.append(f"  [yellow]fallback sampler[/] because {escape(str(m['sampler_reason']))}")
    per_call = [info["time_per_call"] for info in m.get("run_info", []) if info.get("time_per_call")]
    outside = sum(info.get("outside_operation", 0) for info in m.get("run_info", []))
    if per_call:
        lines.append(
            f"  {format_time(sorted(per_call)[len(per_call) // 2])} per call while profiled (not a timing: "
            f"use perflab run); {outside} samples outside the operation dropped"
        )
    return "\n".join(lines)


def _table(title: str, shares: Sequence[FrameShare]) -> Table:
    table = Table(title=escape(title), title_justify="left")
    for column in ("self [95% CI]", "total [95% CI]"):
        table.add_column(column, justify="right")
    for column in ("function", "where"):
        table.add_column(column, justify="left")
    for share in shares:
        frame = parse_frame(share.frame)
        table.add_row(
            format_share(share.self), format_share(share.total), escape(frame.name), f"[dim]{escape(frame.location)}[/]"
        )
    return table


def format_share(share: Interval) -> str:
    return f"{_pct(share.value)} [{_pct(share.low, bare=True)}–{_pct(share.high, bare=True)}]"


def _pct(fraction: float, bare: bool = False) -> str:
    text = f"{fraction * 100:.1f}"
    return text if bare else text + "%"


def _hottest_path(profile: Profile) -> str:
    root = build_tree(profile.merged(), "the program" if "program" in profile.metadata else "measured_region")
    lines = ["[bold]hottest path[/] (heaviest callee at each level; share of the operation, in it and below)"]
    for depth, node in enumerate(hottest_path(root)):
        frame = parse_frame(node.frame)
        where = f" [dim]{escape(frame.location)}[/]" if frame.file else ""
        lines.append(f"  {'  ' * depth}{node.total / root.total:6.1%}  {escape(frame.name)}{where}")
    return "\n".join(lines)


def what_if_line(what_if: WhatIf) -> str:
    frames = ", ".join(parse_frame(f).name for f in what_if.frames[:3]) + (
        f" and {len(what_if.frames) - 3} more" if len(what_if.frames) > 3 else ""
    )
    factor = "removed" if math.isinf(what_if.factor) else f"{what_if.factor:g}x faster"
    speedup = what_if.speedup
    high = "∞x" if math.isinf(speedup.high) else format_times_factor(speedup.high)
    return (
        f"[bold]what if[/] {escape(what_if.pattern)} ({escape(frames)}; self share {format_share(what_if.share)}) "
        f"were {factor}: the operation would be [bold]{format_times_factor(speedup.value)} faster[/] "
        f"[95% CI {format_times_factor(speedup.low)}, {high}]"
    )
