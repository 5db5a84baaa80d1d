"""An interactive flame graph of a profile, as one self-contained HTML file (works offline, no CDN).

The page draws on a <canvas> (never one DOM node per frame), so it stays responsive for a million
samples and tens of thousands of distinct frames: only frames wider than half a pixel are drawn,
and a subtree too narrow to see is skipped as a whole. Features: click to zoom, search with the
share of samples matched, tooltips with each function's self/total share and 95% interval,
flame/icicle toggle, a caller/callee ("sandwich") view of one function, file:line of Python frames.

Data goes into the page as JSON inside a <script type="application/json"> element with <, > and &
escaped, and the script only ever sets text (textContent, canvas fillText): names and paths from
user code cannot inject markup.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from perflab import __version__
from perflab.profile.calltree import flame_columns
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile, describe_sampling, weight_unit
from perflab.profile.shares import FrameShare, frame_shares
from perflab.units import counted

ROOT_LABEL = "measured_region (the operation)"
PROGRAM_ROOT_LABEL = "the program"  # a whole-program profile (perflab.profile.program)
_PYTHON, _NATIVE, _OTHER = 0, 1, 2


def render(profile: Profile, title: str = "perflab profile", shares: list[FrameShare] | None = None) -> str:
    """The flame graph viewer of one profile, as one offline HTML page."""
    data = page_data(profile, title, frame_shares(profile.runs) if shares is None else shares)
    assets = resources.files("perflab.render.html") / "assets"
    return _TEMPLATE.format(
        title=html.escape(title),
        version=html.escape(__version__),
        viewer=viewer_markup(data),
        css=(assets / "flamegraph.css").read_text(encoding="utf-8"),
        js=(assets / "flamegraph.js").read_text(encoding="utf-8"),
    )


def viewer_markup(data: dict[str, Any]) -> str:
    """The viewer's elements and its data (``page_data``), which flamegraph.js draws into; the web
    view puts them in its own page with the script loaded from a file."""
    return _VIEWER.format(
        title=html.escape(data["title"]),
        data=script_json(data),
        meta="".join(f"<li>{html.escape(line)}</li>" for line in data["meta"]),
    )


def script_json(data: Any) -> str:
    """JSON that cannot end its <script> element or open a comment, whatever strings it holds."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def page_data(profile: Profile, title: str, shares: list[FrameShare]) -> dict[str, Any]:
    """Frames (columns), per-frame shares with intervals, and the call tree in depth-first order."""
    by_label = {share.frame: share for share in shares}
    columns = flame_columns(profile.merged(), PROGRAM_ROOT_LABEL if "program" in profile.metadata else ROOT_LABEL)
    index: dict[str, int] = {}
    names: list[str] = []
    files: list[str] = []
    lines: list[int | None] = []
    kinds: list[int] = []
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
            share = by_label.get(label)
            stats.extend(_rounded(share) if share else [0] * 6)
        node_frame.append(position)
    stats[:6] = [0, 0, 0, 1, 1, 1]  # the root: all of the operation
    kinds[0] = _OTHER  # the root is the harness' measured region, not a function of the operation
    return {
        "title": title,
        "meta": _meta_lines(profile),
        "runs": len(profile.runs),
        "unit": weight_unit(profile.metadata),
        "frames": {"name": names, "file": files, "line": lines, "kind": kinds},
        "stats": stats,
        "nodes": {"frame": node_frame, "depth": columns.depth, "total": columns.total, "self": columns.self},
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
    if m.get("sampler_reason"):
        lines.append(f"fallback sampler because {m['sampler_reason']}")
    return lines


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="perflab {version}">
<title>{title} - perflab flame graph</title>
<style>{css}</style>
</head>
<body>
{viewer}<script>{js}</script>
</body>
</html>
"""

_VIEWER = """<header>
  <h1>{title}</h1>
  <ul id="meta">{meta}</ul>
  <div id="toolbar">
    <button type="button" id="reset" title="Show the whole operation (Esc)">Reset zoom</button>
    <button type="button" id="icicle" aria-pressed="false" title="Root at the top instead of the bottom">Icicle</button>
    <button type="button" id="sandwich" disabled title="Callers and callees of the selected function">Sandwich</button>
    <input type="search" id="search" placeholder="Search functions and files (regular expression)" autocomplete="off">
    <span id="matched" aria-live="polite"></span>
  </div>
  <div id="crumbs"></div>
</header>
<main>
  <section id="flame-pane"><canvas id="flame"></canvas></section>
  <section id="sandwich-pane" hidden>
    <h2>Callers of <span id="sandwich-name"></span> <button type="button" id="sandwich-close">Back to the flame graph</button></h2>
    <canvas id="callers"></canvas>
    <h2>Callees</h2>
    <canvas id="callees"></canvas>
  </section>
</main>
<div id="tooltip" role="tooltip" hidden></div>
<script type="application/json" id="profile-data">{data}</script>
"""
