"""A line heat map's tables: per function, each source line with its share of the operation.

A --lines profile labels each Python frame by the line it was running, so a function is several
frames, one per sampled line. Grouped back by function (its name and file), a line's self share is
the time spent on that line itself and its total share the time with that line on the stack (it and
what it calls). The lines of one function are disjoint, so their self shares add up to the
function's self share and, without recursion, their total shares to its total share. The source
text comes from the profile's metadata (perflab.profile.sources), kept when the profile was taken.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perflab.profile.diff import function_key
from perflab.profile.folded import Stack
from perflab.profile.frames import Frame, parse_frame
from perflab.profile.model import Profile
from perflab.profile.shares import FrameShare, frame_shares


@dataclass(frozen=True)
class LineRow:
    number: int
    text: str | None  # None: a sampled line whose source was not kept (beyond the stored window)
    share: FrameShare | None  # None: no sample ran this line (shown unmarked)
    heat: float  # 0..1: the line's total share of the operation (it and what it calls, as line profilers count)


@dataclass(frozen=True)
class LineTable:
    """One function's source view: its shares over all its lines, and each line's."""

    key: str  # the function's label without a line (perflab.profile.diff.function_key)
    name: str
    file: str
    function: FrameShare
    rows: list[LineRow]


def sampled_lines(frames: Iterable[str]) -> dict[str, dict[int, str]]:
    """Python frames with a line, by function (``function_key``): line number -> the frame's label."""
    lines: dict[str, dict[int, str]] = defaultdict(dict)
    for label in frames:
        frame = parse_frame(label)
        if frame.is_python and frame.line is not None:
            lines[function_key(label)][frame.line] = label
    return dict(lines)


def function_shares(runs: Sequence[Mapping[Stack, int]]) -> dict[str, FrameShare]:
    """Each function's self and total share over all its lines (a sample counts once per function)."""
    by_function = [Counter({tuple(map(function_key, stack)): count for stack, count in run.items()}) for run in runs]
    return {share.frame: share for share in frame_shares(by_function)}


def line_tables(profile: Profile, shares: Sequence[FrameShare]) -> list[LineTable]:
    """The source view of each function whose source the profile kept, hottest first; empty for a
    profile by function or one saved without sources."""
    sources: list[dict[str, Any]] = profile.metadata.get("sources") or []
    if not profile.metadata.get("lines") or not sources:
        return []
    by_label = {share.frame: share for share in shares}
    lines = sampled_lines(by_label)
    functions = function_shares(profile.runs)
    tables = []
    for source in sources:
        key = Frame(source["name"], source["file"], None).label
        if key not in functions:
            continue
        sampled = lines.get(key, {})
        texts = {source["first"] + offset: text for offset, text in enumerate(source["lines"])}
        rows = []
        for number in sorted(texts.keys() | sampled.keys()):
            share = by_label[sampled[number]] if number in sampled else None
            rows.append(LineRow(number, texts.get(number), share, share.total.value if share else 0.0))
        tables.append(LineTable(key, source["name"], source["file"], functions[key], rows))
    return tables
