"""The comparison report: one self-contained, offline HTML file (no CDN, no network).

One section per benchmark (``perflab compare`` writes one, ``perflab demo`` one per built-in), each
with the verdict table, a chart of per-case ratios with their intervals, the distribution of
per-process medians of every contender, the equivalence results with counterexamples (declared
cases and fuzzing), the flame graph of each side, the differential flame graph (red = slower,
blue = faster) with the sentence naming where the difference is, and the run's metadata.

Charts are inline SVG made here. Each side's flame graph is perflab's interactive flame graph page
(render/html/flamegraph.py: zoom, search, tooltips, icicle, sandwich) embedded as an iframe
``srcdoc``, so its script runs unchanged in its own document. Everything from user code is
escaped: text with html.escape, data as JSON in <script type="application/json"> (script_json).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from perflab import __version__
from perflab.profile.diff import ProfileDiff
from perflab.profile.frames import parse_frame
from perflab.profile.side_profiles import CaseProfiles
from perflab.render.html import flamegraph
from perflab.render.html.flamegraph import script_json
from perflab.results.model import FUZZING_CASE, INVALID, RunResult
from perflab.results.quantities import FASTER, NO_DIFFERENCE, SLOWER
from perflab.results.verdicts import INVALID as INVALID_VERDICT
from perflab.results.verdicts import REPEAT_ONLY, UNDECIDED
from perflab.units import format_ratio, format_time, format_times

# The style of each verdict: invalid and repeat-only have colours of their own (never that of
# "slower": a contender that computes something else is not slower, its ratio does not count).
VERDICT_CLASS = {
    FASTER: "faster",
    SLOWER: "slower",
    NO_DIFFERENCE: "same",
    UNDECIDED: "same",
    INVALID_VERDICT: "invalid",
    REPEAT_ONLY: "caution",
}
_CHART_WIDTH = 760


@dataclass
class Section:
    """One benchmark's results and profiles."""

    result: RunResult
    profiles: list[CaseProfiles] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. what was profiled and why


def render(sections: Sequence[Section], title: str, notes: Sequence[str] = ()) -> str:
    assets = resources.files("perflab.render.html") / "assets"
    body = [f"<h1>{_e(title)}</h1>"]
    body += [f"<p class='note'>{_e(note)}</p>" for note in notes]
    if len(sections) > 1:
        body.append(summary(sections))
        body.append(
            "<nav><ul>"
            + "".join(f"<li><a href='#s{i}'>{_e(s.result.benchmark)}</a></li>" for i, s in enumerate(sections))
            + "</ul></nav>"
        )
    body += [render_section(i, section) for i, section in enumerate(sections)]
    return _TEMPLATE.format(
        title=_e(title),
        version=_e(__version__),
        body="\n".join(body),
        css=(assets / "report.css").read_text(encoding="utf-8"),
        js=(assets / "diffflame.js").read_text(encoding="utf-8"),
    )


def summary(sections: Sequence[Section]) -> str:
    """Each benchmark's headline at the top of a report of several (``perflab demo``): who is faster
    than the reference by how much (geometric mean over cases, with its interval), and which
    contenders' ratios are struck out (they do not count)."""
    items = []
    for index, section in enumerate(sections):
        result = section.result
        items.append(f"<li><a href='#s{index}'>{_e(result.benchmark)}</a>: {headline(result)}</li>")
    return "<section class='summary'><h2>Summary</h2><ul>" + "".join(items) + "</ul></section>"


def headline(result: RunResult) -> str:
    """'orjson: 9.62x faster [9.41x, 9.83x] than json_stdlib, the fastest (geometric mean over cases);
    invalid: ...'. It never says more than the table: a contender whose ratio is struck out there
    (invalid, repeat-only) is named only as such."""
    struck = result.struck()
    counted = {
        name: mean
        for name, mean in result.geometric_means.items()
        if mean is not None and math.isfinite(mean.low) and math.isfinite(mean.high) and name not in struck
    }
    parts = []
    if counted:
        best, mean = min(counted.items(), key=lambda item: item[1].value)
        speed = _e(format_ratio(mean.value, mean.low, mean.high))
        if mean.high < 1:
            parts.append(f"<strong>{_e(best)}</strong> is fastest: {speed} than {_e(result.reference)}")
        elif mean.low > 1:
            parts.append(
                f"every contender is slower than {_e(result.reference)}; the closest, "
                f"<strong>{_e(best)}</strong>: {speed}"
            )
        else:
            parts.append(f"no detectable difference between {_e(best)} and {_e(result.reference)} ({speed})")
        parts[-1] += " (geometric mean over cases)"
    else:
        parts.append("no contender whose ratio counts was timed against the reference")
    for verdict, css in ((INVALID_VERDICT, "invalid"), (REPEAT_ONLY, "caution")):
        names = sorted(name for name, why in struck.items() if why == verdict)
        if names:
            parts.append(
                f"<span class='{css}'>{verdict}: {', '.join(_e(name) for name in names)}</span> "
                "(their ratios are struck out and do not count)"
            )
    return "; ".join(parts)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def render_section(index: int, section: Section) -> str:
    result = section.result
    parts = [
        f"<section class='benchmark' id='s{index}'>",
        f"<h2>{_e(result.benchmark)} <small>{_e(result.file)}</small></h2>",
    ]
    parts += [f"<p class='note'>{_e(note)}</p>" for note in section.notes]
    if result.interrupted:
        parts.append("<p class='warn'>Interrupted: the results cover what was measured before Ctrl-C.</p>")
    parts += [
        "<h3>Verdicts</h3>",
        _verdict_table(result),
        _geometric_means(result),
        "<h3>Each side against the reference per case (time ratio side / reference, 95% CI)</h3>",
        _ratio_chart(result),
        "<h3>Distributions (per-process median time per call; box: quartiles)</h3>",
        _distributions(result),
        "<h3>Equivalence</h3>",
        _equivalence(result),
    ]
    if section.profiles:
        parts.append("<h3>Profiles</h3>")
        parts += [_profiles(index, k, entry) for k, entry in enumerate(section.profiles)]
    parts += ["<details class='meta'><summary>Run metadata</summary>", _metadata(result), "</details>", "</section>"]
    return "\n".join(parts)


# ---- verdicts -----------------------------------------------------------------------------------


def _verdict_table(result: RunResult) -> str:
    comparisons = {(c.case, c.contender): c for c in result.comparisons}
    rows = []
    for cell in result.cells:
        if cell.skipped:
            time = f"skipped: {cell.skipped}"
        elif cell.estimates is None:
            time = f"failed: {cell.error}" if cell.error else "not measured"
        else:
            m = cell.estimates.median
            time = format_times(m.value, m.low, m.high)
        comparison = comparisons.get((cell.case, cell.contender))
        ratio = verdict = ratio_css = css = ""
        if comparison is not None:
            shown = result.shown(comparison)
            ratio, verdict, css = shown.ratio, shown.text, VERDICT_CLASS[shown.verdict]
            ratio_css = "struck" if shown.struck else ""
        elif cell.contender == result.reference:
            verdict = "reference"
        rows.append(
            f"<tr><td>{_e(cell.case)}</td><td>{_e(cell.contender)}</td><td>{_e(time)}</td>"
            f"<td class='{ratio_css}'>{_e(ratio)}</td><td class='{css}'>{_e(verdict)}</td>"
            f"<td>{_e(result.equivalence_label(cell.case, cell.contender))}</td></tr>"
        )
    return (
        "<table class='verdicts'><thead><tr><th>case</th><th>side</th><th>time per call [95% CI]</th>"
        f"<th>vs {_e(result.reference)} [95% CI]</th><th>verdict</th><th>equivalence</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _geometric_means(result: RunResult) -> str:
    lines = [
        f"geometric mean over cases, {_e(name)} vs {_e(result.reference)}: {_e(result.mean_shown(name))}"
        for name in result.geometric_means
        if result.mean_shown(name) is not None
    ]
    settings = result.settings
    lines.append(
        f"verdicts at a false discovery rate of {settings.get('alpha', 0):.0%} across cases "
        f"(Benjamini-Hochberg); differences under {settings.get('min_effect', 0):.0%} count as none"
    )
    return "<ul class='plain'>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul>"


def _ratio_chart(result: RunResult) -> str:
    """Speedups per case (1 / time ratio) with their 95% intervals, on a log axis: right of x1 is
    faster, as the verdict table says it."""
    rows = [c for c in result.comparisons if math.isfinite(c.comparison.ratio.value) and c.comparison.ratio.value > 0]
    if not rows:
        return "<p class='note'>No comparison to chart.</p>"
    speedups = [
        1 / x
        for c in rows
        for x in (c.comparison.ratio.low, c.comparison.ratio.high, c.comparison.ratio.value)
        if math.isfinite(x) and x > 0
    ]
    lo, hi = min(speedups + [1.0]), max(speedups + [1.0])
    lo, hi = lo / 1.15, hi * 1.15
    left, width, row = 260, _CHART_WIDTH - 290, 22
    x = lambda v: left + (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) * width
    height = row * len(rows) + 30
    svg = [
        f"<svg class='chart' viewBox='0 0 {_CHART_WIDTH} {height}' width='{_CHART_WIDTH}' height='{height}' "
        "role='img' aria-label='speedups per case with 95% intervals'>",
        f"<line x1='{x(1):.1f}' y1='0' x2='{x(1):.1f}' y2='{height - 20}' class='one'/>",
    ]
    for tick in log_ticks(lo, hi, x):
        factor = tick if tick >= 1 else 1 / tick  # a factor of times is at least 1, its side says which way
        svg.append(f"<text x='{x(tick):.1f}' y='{height - 5}' class='tick'>{factor:g}x</text>")
    for i, c in enumerate(rows):
        r, y = c.comparison.ratio, 14 + i * row
        shown = result.shown(c)
        css = VERDICT_CLASS[shown.verdict]
        label = f"{c.case} / {c.contender}"
        svg.append(f"<text x='{left - 8}' y='{y + 4}' class='label'>{_e(label[:40])}</text>")
        if math.isfinite(r.low) and math.isfinite(r.high) and r.low > 0:
            svg.append(
                f"<line x1='{x(max(1 / r.high, lo)):.1f}' y1='{y}' x2='{x(min(1 / r.low, hi)):.1f}' y2='{y}' "
                f"class='ci {css}'/>"
            )
        svg.append(
            f"<circle cx='{x(1 / r.value):.1f}' cy='{y}' r='4' class='{css}'>"
            f"<title>{_e(label)}: {_e(shown.ratio)}, {_e(shown.text)}</title>"
            "</circle>"
        )
    svg.append("</svg>")
    return "".join(svg) + (
        "<p class='note'>Right of 1x: faster than the reference by that factor; left: slower (log scale). "
        "Struck-out ratios (invalid, repeat-only) do not count.</p>"
    )


MIN_TICK_GAP = 48  # pixels between tick labels, so that none overlaps its neighbour


def log_ticks(lo: float, hi: float, position) -> list[float]:
    """1-2-5 ticks between ``lo`` and ``hi`` (and 1), dropping any closer than MIN_TICK_GAP pixels
    to the last one kept; 1 is always kept, being the line of no difference."""
    candidates = sorted(
        {m * 10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for m in (1, 2, 5)}
        | {1.0}
    )
    inside = [t for t in candidates if lo <= t <= hi]
    kept: list[float] = []
    for tick in sorted(inside, key=lambda t: (t != 1, t)):  # 1 first, then left to right
        if all(abs(position(tick) - position(other)) >= MIN_TICK_GAP for other in kept):
            kept.append(tick)
    return sorted(kept)


def _distributions(result: RunResult) -> str:
    parts = []
    for case in dict.fromkeys(c.case for c in result.cells):
        cells = [c for c in result.cells if c.case == case and c.process_values()]
        if not cells:
            continue
        medians = {c.contender: [float(np.median(v)) for v in c.process_values()] for c in cells}
        everything = [v for values in medians.values() for v in values]
        lo, hi = min(everything), max(everything)  # the axis starts and ends where the data does
        if hi == lo:
            lo, hi = lo * 0.99, hi * 1.01
        left, width, row, margin = 200, _CHART_WIDTH - 250, 26, 8  # margin: pixels, not negative times
        x = lambda v, lo=lo, hi=hi: left + margin + (v - lo) / (hi - lo) * (width - 2 * margin)  # noqa: B023 - used in this iteration only
        height = row * len(cells) + 28
        svg = [
            f"<svg class='chart' viewBox='0 0 {_CHART_WIDTH} {height}' width='{_CHART_WIDTH}' height='{height}' "
            f"role='img' aria-label='distribution of {_e(case)}'>"
        ]
        for i, (name, values) in enumerate(medians.items()):
            y = 14 + i * row
            q1, q2, q3 = np.percentile(values, [25, 50, 75])
            svg.append(f"<text x='{left - 8}' y='{y + 4}' class='label'>{_e(name[:28])}</text>")
            svg.append(
                f"<rect x='{x(q1):.1f}' y='{y - 8}' width='{max(x(q3) - x(q1), 1):.1f}' height='16' class='box'/>"
                f"<line x1='{x(q2):.1f}' y1='{y - 8}' x2='{x(q2):.1f}' y2='{y + 8}' class='median'/>"
            )
            for k, v in enumerate(values):
                svg.append(
                    f"<circle cx='{x(v):.1f}' cy='{y + ((k * 7) % 11) - 5}' r='2' class='dot'>"
                    f"<title>{_e(name)}: {_e(format_time(v))}</title></circle>"
                )
        for v in np.linspace(lo, hi, 5):
            svg.append(f"<text x='{x(v):.1f}' y='{height - 4}' class='tick'>{_e(format_time(v, hi))}</text>")
        svg.append("</svg>")
        parts.append(f"<h4>{_e(case)}</h4>" + "".join(svg))
    return "".join(parts) or "<p class='note'>Nothing was timed.</p>"


# ---- equivalence --------------------------------------------------------------------------------


def _equivalence(result: RunResult) -> str:
    rows = []
    for e in result.equivalence:
        css = "invalid" if e.status in INVALID else ""
        case = "generated inputs and call patterns" if e.case == FUZZING_CASE else e.case
        rows.append(
            f"<tr><td>{_e(case)}</td><td>{_e(e.contender)}</td><td class='{css}'>{_e(e.status)}</td>"
            f"<td class='mono'>{_e(e.difference or '')}</td><td>{_e(e.note or '')}</td></tr>"
        )
    if not rows:
        return "<p class='note'>No equivalence checks recorded.</p>"
    return (
        "<table class='equivalence'><thead><tr><th>case</th><th>side</th><th>status</th>"
        "<th>difference / counterexample</th><th>note</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


# ---- profiles -----------------------------------------------------------------------------------


def _profiles(section: int, k: int, entry: CaseProfiles) -> str:
    parts = [
        f"<div class='profiles' id='p{section}-{k}'>",
        f"<h4>{_e(entry.case)}: {_e(entry.reference)} vs {_e(entry.other)}</h4>",
    ]
    if entry.diff is not None:
        parts.append(f"<p class='explain'>{_e(entry.diff.explain())}</p>")
    parts += [f"<p class='note'>{_e(note)}</p>" for note in entry.notes + (entry.diff.notes if entry.diff else [])]
    if entry.diff is not None:
        parts.append(diff_flame(entry.diff) + diff_table(entry.diff))
    for name, profile in ((entry.reference, entry.reference_profile), (entry.other, entry.other_profile)):
        if profile.runs:
            page = flamegraph.render(profile, f"{entry.case} / {name}")
            parts.append(
                f"<details open><summary>Flame graph of {_e(name)}</summary>"
                f"<iframe class='flame' title='flame graph of {_e(name)}' srcdoc=\"{_e(page)}\"></iframe>"
                "</details>"
            )
    parts.append("</div>")
    return "\n".join(parts)


def diff_flame(diff: ProfileDiff) -> str:
    rows = _flame_rows(diff)
    names, wheres = [], []
    for path in rows["path"]:
        frame = parse_frame(path[-1]) if path else None
        names.append(frame.name if frame else "the operation")
        wheres.append(frame.location if frame and frame.file else "")
    nodes = rows["nodes"]
    finite = lambda v: v if math.isfinite(v) else None
    data = {
        "sides": [diff.a_name, diff.b_name],
        "name": names,
        "where": wheres,
        "depth": rows["depth"],
        "width": [(n.a + n.b) / 2 for n in nodes],
        "a": [n.a for n in nodes],
        "b": [n.b for n in nodes],
        "diff": [n.difference.value for n in nodes],
        "low": [finite(n.difference.low) for n in nodes],
        "high": [finite(n.difference.high) for n in nodes],
        "selfDiff": [n.b_self - n.a_self for n in nodes],
    }
    return (
        "<div class='diffflame'><div class='diff-toolbar'><strong>Differential flame graph</strong> "
        f"({_e(diff.b_name)} - {_e(diff.a_name)}; width: mean time per call; "
        "<span class='slower'>red: slower</span>, <span class='faster'>blue: faster</span>; "
        "paler: interval includes 0) <button type='button' class='diff-reset'>Reset zoom</button></div>"
        "<div class='diff-crumbs'></div><canvas></canvas>"
        f"<script type='application/json'>{script_json(data)}</script></div>"
    )


def _flame_rows(diff: ProfileDiff) -> Mapping[str, Sequence]:
    """The differential tree as columns in depth-first order (siblings by name), for the report."""
    paths = sorted(diff.nodes)  # tuples sort parents first, then children by name: depth-first order
    return {"path": paths, "depth": [len(p) for p in paths], "nodes": [diff.nodes[p] for p in paths]}


def diff_table(diff: ProfileDiff, count: int = 8) -> str:
    rows = []
    for n in diff.largest_self_changes(count):
        rows.append(
            f"<tr><td class='mono'>{_e(' > '.join(parse_frame(p).name for p in n.path))}</td>"
            f"<td>{_e(format_time(n.a_self))}</td><td>{_e(format_time(n.b_self))}</td>"
            f"<td>{_e(_signed(n.b_self - n.a_self))}</td></tr>"
        )
    return (
        "<details><summary>Largest changes in self time per call</summary><table><thead><tr><th>call path</th>"
        f"<th>{_e(diff.a_name)}</th><th>{_e(diff.b_name)}</th><th>difference</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></details>"
    )


def _signed(seconds: float) -> str:
    return ("+" if seconds >= 0 else "-") + format_time(abs(seconds))


# ---- metadata -----------------------------------------------------------------------------------


def _metadata(result: RunResult) -> str:
    m = result.metadata
    python, machine, git = m.get("python") or {}, m.get("machine") or {}, m.get("git") or {}
    rows = [
        ("perflab", m.get("perflab_version", __version__)),
        ("command", m.get("command", "")),
        ("python", f"{python.get('implementation', '')} {python.get('version', '')} ({python.get('executable', '')})"),
        ("build", python.get("build", "")),
        ("machine", ", ".join(f"{k}: {v}" for k, v in machine.items())),
        ("git", ", ".join(f"{k}: {v}" for k, v in git.items()) if git else "not a git checkout"),
        ("load at start", m.get("load_average_at_start", "")),
        ("timing phase", f"{result.elapsed:.1f} s"),
        ("settings", ", ".join(f"{k}={v}" for k, v in result.settings.items())),
    ]
    for name, side in result.sides.items():
        rows.append(
            (
                f"side {name}",
                f"{side.get('file')} :: {side.get('contender')} under {side.get('python')}"
                + (f", imports from {', '.join(side['sys_path'])}" if side.get("sys_path") else ""),
            )
        )
    return (
        "<table class='metadata'>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows) + "</table>"
    )


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="perflab {version}">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
{body}
<div id="diff-tooltip" role="tooltip" hidden></div>
<script>{js}</script>
</body>
</html>
"""


def render_profiles(entry: CaseProfiles, title: str) -> str:
    """A page of one differential profile and both flame graphs (``perflab diff --html``)."""
    assets = resources.files("perflab.render.html") / "assets"
    return _TEMPLATE.format(
        title=_e(title),
        version=_e(__version__),
        body=f"<h1>{_e(title)}</h1>" + _profiles(0, 0, entry),
        css=(assets / "report.css").read_text(encoding="utf-8"),
        js=(assets / "diffflame.js").read_text(encoding="utf-8"),
    )
