"""An interactive flame graph of a profile, as one self-contained HTML file (works offline, no CDN).

The page draws on a <canvas> (never one DOM node per frame), so it stays responsive for a million
samples and tens of thousands of distinct frames: only frames wider than half a pixel are drawn,
and a subtree too narrow to see is skipped as a whole. Features: click to zoom, search with the
share of samples matched, tooltips with each function's self/total share and 95% interval,
flame/icicle toggle, a caller/callee ("sandwich") view of one function, file:line of Python frames,
and for C frames the simulated cache misses of their function when --metric cache counted the same
cell (perflab.profile.simulated_cache).

The page is templates/flamegraph.html (autoescaped, render/html/templating.py). Data goes into it as
JSON inside a <script type="application/json"> element with <, > and & escaped (script_json), and
the script only ever sets text (textContent, canvas fillText): names and paths from
user code cannot inject markup.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from perflab.profile.calltree import flame_columns
from perflab.profile.diff import function_key
from perflab.profile.frames import parse_frame
from perflab.profile.line_heat import LineTable, line_tables
from perflab.profile.model import Profile, describe_sampling, weight_unit
from perflab.profile.offload import Offload
from perflab.profile.shares import FrameShare, frame_shares
from perflab.profile.simulated_cache import of_frame
from perflab.render.cache_tables import frame_note
from perflab.render.html import templating
from perflab.render.html.offload_chart import chart_markup
from perflab.units import counted

ROOT_LABEL = "measured_region (the operation)"
PROGRAM_ROOT_LABEL = "the program"  # a whole-program profile (perflab.profile.program)
_PYTHON, _NATIVE, _OTHER = 0, 1, 2


def render(
    profile: Profile,
    title: str = "perflab profile",
    shares: list[FrameShare] | None = None,
    offload: Offload | None = None,
) -> str:
    """The flame graph viewer of one profile, as one offline HTML page; under it the size chart of
    an offload what-if made from the profile."""
    data = page_data(profile, title, frame_shares(profile.runs) if shares is None else shares)
    chart = chart_markup(offload) if offload else None
    return templating.render(
        "flamegraph.html", title=title, data=data, offload=chart, css="flamegraph.css", script="flamegraph.js"
    )


def viewer_markup(data: dict[str, Any]) -> Markup:
    """The viewer's elements and its data (``page_data``), which flamegraph.js draws into; the web
    view puts them in its own page with the script loaded from a file."""
    return templating.macro("viewer.html", "viewer")(data)


def page_data(profile: Profile, title: str, shares: list[FrameShare]) -> dict[str, Any]:
    """Frames (columns), per-frame shares with intervals, the call tree in depth-first order, for
    a --lines profile the source views of its hottest functions (``source``: a frame's view, or -1),
    and a C frame's simulated cache misses (``cache``: a line for its tooltip, or null)."""
    by_label = {share.frame: share for share in shares}
    tables = line_tables(profile, shares)
    view_of = {table.key: i for i, table in enumerate(tables)}
    columns = flame_columns(profile.merged(), PROGRAM_ROOT_LABEL if "program" in profile.metadata else ROOT_LABEL)
    index: dict[str, int] = {}
    names: list[str] = []
    files: list[str] = []
    lines: list[int | None] = []
    kinds: list[int] = []
    source: list[int] = []
    cache: list[str | None] = []
    stats: list[float] = []  # six numbers per frame (self and total share with bounds)
    node_frame = []
    for label in columns.frame:
        position = index.get(label)
        if position is None:
            position = index[label] = len(names)
            frame = parse_frame(label)
            names.append(frame.name)
            files.append(frame.file)
            lines.append(frame.line)
            kinds.append(_PYTHON if frame.is_python else _OTHER if frame.name == "[unknown]" else _NATIVE)
            source.append(view_of.get(function_key(label), -1) if frame.is_python else -1)
            counted = of_frame(profile.metadata, label)
            cache.append(frame_note(counted) if counted else None)
            share = by_label.get(label)
            stats.extend(_rounded(share) if share else [0] * 6)
        node_frame.append(position)
    stats[:6] = [0, 0, 0, 1, 1, 1]  # the root: all of the operation
    kinds[0] = _OTHER  # the root is the harness' measured region, not a function of the operation
    cache[0] = None
    return {
        "title": title,
        "meta": _meta_lines(profile),
        "runs": len(profile.runs),
        "unit": weight_unit(profile.metadata),
        "byLine": bool(profile.metadata.get("lines")),
        "frames": {"name": names, "file": files, "line": lines, "kind": kinds, "source": source, "cache": cache},
        "stats": stats,
        "sources": [_source_view(table) for table in tables],
        "nodes": {"frame": node_frame, "depth": columns.depth, "total": columns.total, "self": columns.self},
    }


def _source_view(table: LineTable) -> dict[str, Any]:
    """One function's lines for flamegraph.js: number, text (null: not kept), heat, and the six
    numbers of its shares (null: no sample ran the line)."""
    return {
        "name": table.name,
        "file": table.file,
        "stats": _rounded(table.function),
        "rows": [
            {
                "line": row.number,
                "text": row.text,
                "heat": round(row.heat, 3),
                "stats": row.share and _rounded(row.share),
            }
            for row in table.rows
        ],
    }


def _rounded(share: FrameShare) -> list[float]:
    return [
        round(x, 5)
        for x in (
            share.self.value,
            share.self.low,
            share.self.high,
            share.total.value,
            share.total.low,
            share.total.high,
        )
    ]


def _meta_lines(profile: Profile) -> list[str]:
    m = profile.metadata
    python = m.get("python") or {}
    lines = [
        f"{counted(profile.samples, weight_unit(m).removesuffix('s'))} of the operation in "
        f"{counted(len(profile.runs), 'run')} (fresh processes); "
        "intervals are 95% across runs",
        f"sampler {describe_sampling(m)}",
        f"Python {python.get('version', '?')} {python.get('implementation', '')}: {python.get('build', '')}",
    ]
    if m.get("partial"):
        lines.append(f"partial: the session was cut short: {m['partial']}")
    if m.get("sampler_reason"):
        lines.append(f"fallback sampler because {m['sampler_reason']}")
    return lines
