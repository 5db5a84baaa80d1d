"""The terminal view of a profile: top frames by self and by total share, with intervals; the hottest path."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perflab.profile.allocations import per_call
from perflab.profile.calltree import build_tree, hottest_path
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile, describe_sampling, is_allocation_profile, weight_unit
from perflab.profile.offload import Offload, format_size_factor, format_speedup
from perflab.profile.settings import MEMORY_VIEWS
from perflab.profile.shares import FrameShare, frame_shares
from perflab.profile.whatif import WhatIf
from perflab.results.quantities import Interval
from perflab.units import counted, format_bytes, format_count, format_time, format_times_factor

DEFAULT_TOP = 15


def render(
    profile: Profile,
    console: Console,
    what_ifs: Sequence[WhatIf] = (),
    notes: Sequence[str] = (),
    top: int = DEFAULT_TOP,
    shares: list[FrameShare] | None = None,
    offload: Offload | None = None,
) -> None:
    shares = frame_shares(profile.runs) if shares is None else shares
    console.print(_header(profile), highlight=False)
    if not shares:
        console.print(f"[yellow]no {weight_unit(profile.metadata)} of the operation[/]")
    else:
        what = _what(profile)
        by_self = sorted(shares, key=lambda s: (-s.self_samples, s.frame))
        # sampled by line (--lines), a frame is a line of a function: the tables are the line heat map
        level = "line" if profile.metadata.get("lines") else "function"
        shown = f"top {min(top, len(shares))}{' lines' if level == 'line' else ''}"
        console.print(_table(f"{shown} by self share ({what} in the {level} itself)", by_self[:top]))
        console.print(_table(f"{shown} by total share ({what} in the {level} and its callees)", shares[:top]))
        console.print(_hottest_path(profile))
    for what_if in what_ifs:
        console.print(what_if_line(what_if), highlight=False)
    if offload is not None:
        console.print(offload_lines(offload), highlight=False)
        console.print(_size_table(offload))
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
    ]
    if is_allocation_profile(m):
        lines += _memory_lines(profile)
    else:
        lines.append(
            f"  {counted(profile.samples, 'sample')} of the operation in {counted(len(profile.runs), 'run')} "
            "(fresh processes)"
        )
    if m.get("partial"):
        lines.append(f"  [yellow]partial[/]: the session was cut short: {escape(str(m['partial']))}")
    if m.get("sampler_reason"):
        lines.append(f"  [yellow]fallback sampler[/] because {escape(str(m['sampler_reason']))}")
    times = [info["time_per_call"] for info in m.get("run_info", []) if info.get("time_per_call")]
    outside = sum(info.get("outside_operation", 0) for info in m.get("run_info", []))
    truncated = sum(info.get("truncated", 0) for info in m.get("run_info", []))  # perf's: stacks deeper than its dump
    if times:
        lines.append(
            f"  {format_time(sorted(times)[len(times) // 2])} per call while profiled (not a timing: "
            f"use perflab run); {counted(outside, 'sample')} outside the operation dropped"
            + (f", {truncated} of them truncated (deeper than perf's stack dump)" if truncated else "")
        )
    return "\n".join(lines)


def _what(profile: Profile) -> str:
    """What a share is a share of."""
    if is_allocation_profile(profile.metadata):
        return MEMORY_VIEWS.get(profile.metadata.get("mode", ""), "memory")
    return "time"


def _memory_lines(profile: Profile) -> list[str]:
    """An allocation profile's calls and its figures per call, each with its interval across runs."""
    infos = profile.metadata.get("run_info", [])
    calls = sorted(info["loops"] for info in infos if info.get("loops"))
    lines = [f"  {len(profile.runs)} runs (fresh processes) of {calls[len(calls) // 2] if calls else '?'} calls each"]
    for name, interval in per_call(profile).items():
        show = format_count if name == "allocations" else format_bytes
        bounds = (
            f"[95% CI {show(interval.low)}, {show(interval.high)}]"
            if math.isfinite(interval.low) and math.isfinite(interval.high)
            else "[no interval: one run]"
        )
        lines.append(f"  {_FIGURES[name]}: {escape(f'{show(interval.value)} {bounds}')}")
    return lines


# The figures above an allocation profile's tables (perflab.profile.allocations.per_call), by view.
_FIGURES = {
    "allocated": "bytes allocated per call",
    "allocations": "allocations per call",
    "peak": "bytes live at the peak (the most held at once during the calls)",
    "held": "bytes still held after the calls, per call",
}


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


def offload_lines(offload: Offload) -> str:
    """The offload prediction as a sentence: what moves, its share, the device's time, the verdict."""
    frames = ", ".join(parse_frame(f).name for f in offload.frames[:3]) + (
        f" and {len(offload.frames) - 3} more" if len(offload.frames) > 3 else ""
    )
    time, share = offload.time_per_call, offload.share
    amdahl = offload.amdahl
    break_even = (
        "it does not pay at any size (the link's time per byte exceeds the software's)"
        if offload.break_even is None
        else f"it pays from {offload.break_even:.3g}x this call's size on"
    )
    return "\n".join(
        [
            f"[bold]offload[/] {escape(offload.pattern)} ({escape(frames)}; with callees "
            f"{format_share(share)} of the operation) to {escape(offload.device.describe())}:",
            f"  per call {format_time(time.value)} [{format_time(time.low)}, {format_time(time.high)}] while "
            f"profiled; the offloaded part {format_time(offload.software_time.value)} in software, "
            f"{format_time(offload.device_time)} on the device ({format_time(offload.transfer_time)} of it moving "
            f"{offload.work.bytes_in + offload.work.bytes_out:,.0f} bytes)",
            f"  the operation would be [bold]{format_speedup(offload.speedup)}[/]; Amdahl's bound (an infinitely fast "
            f"device, a free link) {format_speedup(amdahl)}; {break_even}",
        ]
    )


def _size_table(offload: Offload) -> Table:
    table = Table(title="offload by input size (the operation, data and work scaled alike)", title_justify="left")
    table.add_column("size", justify="right")
    table.add_column("operation after offloading [95% CI]", justify="left")
    for point in offload.sizes:
        table.add_row(format_size_factor(point.factor), format_speedup(point.speedup))
    return table
