"""The comparison report: one self-contained, offline HTML file (no CDN, no network).

One section per benchmark (``perflab compare`` writes one, ``perflab demo`` one per built-in), each
with the verdict table, a chart of per-case ratios with their intervals, the distribution of
per-process medians of every contender, the equivalence results with counterexamples (declared
cases and fuzzing), the flame graph of each side, the differential flame graph (red = slower,
blue = faster) with the sentence naming where the difference is, and the run's metadata.

This module computes what the page says (every number and string, and the charts' coordinates);
templates/report.html and report_parts.html lay it out, autoescaped (render/html/templating.py).
Charts are inline SVG. Each side's flame graph is perflab's interactive flame graph page
(render/html/flamegraph.py: zoom, search, tooltips, icicle, sandwich) embedded as an iframe
``srcdoc``, so its script runs unchanged in its own document.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from markupsafe import Markup

from perflab import __version__
from perflab.profile.diff import ProfileDiff
from perflab.profile.frames import parse_frame
from perflab.profile.side_profiles import CaseProfiles
from perflab.render import cache_tables
from perflab.render.html import flamegraph, memory_sizes, templating
from perflab.render.html.axes import log_ticks
from perflab.results import stopped
from perflab.results.model import FUZZING_CASE, INVALID, RunResult, measured_together
from perflab.results.quantities import FASTER, NO_DIFFERENCE, SLOWER
from perflab.results.verdicts import INVALID as INVALID_VERDICT
from perflab.results.verdicts import LESS_MEMORY, MORE_MEMORY, REPEAT_ONLY, SAME_MEMORY, UNDECIDED
from perflab.results.warnings import run_warnings
from perflab.units import format_time, format_times

# The style of each verdict: invalid and repeat-only have colours of their own (never that of
# "slower": a contender that computes something else is not slower, its ratio does not count).
VERDICT_CLASS = {
    FASTER: "faster",
    SLOWER: "slower",
    NO_DIFFERENCE: "same",
    UNDECIDED: "same",
    INVALID_VERDICT: "invalid",
    REPEAT_ONLY: "caution",
    MORE_MEMORY: "slower",
    LESS_MEMORY: "faster",
    SAME_MEMORY: "same",
}
_CHART_WIDTH = 760


@dataclass
class Section:
    """One benchmark's results and profiles."""

    result: RunResult
    profiles: list[CaseProfiles] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. what was profiled and why


def render(sections: Sequence[Section], title: str, notes: Sequence[str] = ()) -> str:
    return templating.render(
        "report.html",
        title=title,
        notes=notes,
        sections=[_section(index, section) for index, section in enumerate(sections)],
        css="report.css",
        script="diffflame.js",
    )


def render_section(index: int, section: Section) -> Markup:
    """One benchmark's section, for a page of its own (the web view's run page)."""
    return templating.macro("report_parts.html", "section")(_section(index, section))


def headline(result: RunResult) -> Markup:
    """'orjson: 9.62x faster [9.41x, 9.83x] than json_stdlib, the fastest (geometric mean over cases);
    invalid: ...'. It never says more than the table: a contender whose ratio is struck out there
    (invalid, repeat-only) is named only as such."""
    return templating.macro("report_parts.html", "headline")(_headline(result))


def _headline(result: RunResult) -> dict[str, Any]:
    struck = result.struck()
    counted = {
        name: mean
        for name, mean in result.geometric_means.items()
        if mean is not None and math.isfinite(mean.low) and math.isfinite(mean.high) and name not in struck
    }
    said: dict[str, Any] = {"kind": None, "reference": result.reference}
    if counted:
        best, mean = min(counted.items(), key=lambda item: item[1].value)
        kind = "fastest" if mean.high < 1 else "slower" if mean.low > 1 else "same"
        said.update(kind=kind, best=best, speed=result.mean_shown(best))  # qualified if it includes unchecked cases
    said["struck"] = [
        (verdict, css, names)
        for verdict, css in ((INVALID_VERDICT, "invalid"), (REPEAT_ONLY, "caution"))
        if (names := sorted(name for name, why in struck.items() if why == verdict))
    ]
    return said


def _section(index: int, section: Section) -> dict[str, Any]:
    result = section.result
    settings = result.settings
    means = [
        f"geometric mean over cases, {name} vs {result.reference}: {result.mean_shown(name)}"
        for name in result.geometric_means
        if result.mean_shown(name) is not None
    ]
    if result.build_spread is not None:
        means.append(result.build_spread.shown)
    means.append(
        f"verdicts at a false discovery rate of {settings.get('alpha', 0):.0%} across cases "
        f"(Benjamini-Hochberg); differences under {settings.get('min_effect', 0):.0%} count as none"
    )
    return {
        "index": index,
        "benchmark": result.benchmark,
        "file": result.file,
        "notes": section.notes,
        "interrupted": result.interrupted,
        "warnings": [warning.text for warning in run_warnings(result)],
        "headline": _headline(result),
        "verdicts": {
            "reference": result.reference,
            "rows": (rows := _verdict_rows(result)),
            "memory": any(row["memory_ratio"] for row in rows),  # --metric memory: its two columns
        },
        "means": means,
        "chart": _ratio_chart(result),
        "distributions": _distributions(result),
        "memory_sizes": memory_sizes.chart(result),
        "equivalence": _equivalence(result),
        "cache": {"tables": cache_tables.stored_tables(result), "title": cache_tables.TITLE, "note": cache_tables.NOTE},
        "profiles": [_profiles(index, k, entry) for k, entry in enumerate(section.profiles)],
        "metadata": _metadata(result),
    }


# ---- verdicts -----------------------------------------------------------------------------------


def _verdict_rows(result: RunResult) -> list[dict[str, str]]:
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
        memory = result.memory_shown(comparison) if comparison is not None else None
        rows.append(
            {
                "case": cell.case,
                "contender": cell.contender,
                "time": time,
                "ratio": ratio,
                "ratio_css": ratio_css,
                "verdict": verdict,
                "css": css,
                "memory_ratio": memory.ratio if memory else "",
                "memory_verdict": memory.verdict if memory else "",
                "memory_css": VERDICT_CLASS[memory.verdict] if memory else "",
                "equivalence": result.equivalence_label(cell.case, cell.contender),
            }
        )
    return rows


def _ratio_chart(result: RunResult) -> dict[str, Any] | None:
    """Speedups per case (1 / time ratio) with their 95% intervals, on a log axis: right of x1 is
    faster, as the verdict table says it."""
    rows = [c for c in result.comparisons if math.isfinite(c.comparison.ratio.value) and c.comparison.ratio.value > 0]
    if not rows:
        return None
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
    points = []
    for i, c in enumerate(rows):
        r, shown = c.comparison.ratio, result.shown(c)
        label = f"{c.case} / {c.contender}"
        drawn = math.isfinite(r.low) and math.isfinite(r.high) and r.low > 0
        points.append(
            {
                "y": 14 + i * row,
                "label": label,
                "ci": (x(max(1 / r.high, lo)), x(min(1 / r.low, hi))) if drawn else None,
                "x": x(1 / r.value),
                "css": VERDICT_CLASS[shown.verdict],
                "title": f"{label}: {shown.ratio}, {shown.text}",
            }
        )
    return {
        "width": _CHART_WIDTH,
        "height": row * len(rows) + 30,
        "left": left,
        "one": x(1),
        # a factor of times is at least 1, its side says which way
        "ticks": [(x(tick), tick if tick >= 1 else 1 / tick) for tick in log_ticks(lo, hi, x)],
        "rows": points,
    }


def _distributions(result: RunResult) -> list[dict[str, Any]]:
    charts = []
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
        rows = []
        for i, (name, values) in enumerate(medians.items()):
            y = 14 + i * row
            q1, q2, q3 = np.percentile(values, [25, 50, 75])
            dots = [(x(v), y + ((k * 7) % 11) - 5, format_time(v)) for k, v in enumerate(values)]
            rows.append({"y": y, "name": name, "q1": x(q1), "box": max(x(q3) - x(q1), 1), "q2": x(q2), "dots": dots})
        ticks = [(x(v), format_time(v, hi)) for v in np.linspace(lo, hi, 5)]
        charts.append(
            {
                "case": case,
                "width": _CHART_WIDTH,
                "height": row * len(cells) + 28,
                "left": left,
                "rows": rows,
                "ticks": ticks,
            }
        )
    return charts


# ---- equivalence --------------------------------------------------------------------------------


def _equivalence(result: RunResult) -> list[dict[str, str]]:
    """Each check's label as the terminal gives it (``RunResult.equivalence_label``: "equal on
    declared cases" where no fuzzing backs it); a side of a compare stored on its own, the labels
    the run that measured it gave its comparisons with the reference side."""
    together = measured_together(result)
    if not result.equivalence and together is not None:
        reference, entries = together
        return [
            {
                "case": entry.comparison.case,
                "contender": entry.comparison.contender,
                "css": "invalid" if entry.invalid else "",
                "status": entry.equivalence,
                "difference": entry.invalid or "",
                "note": f"against side {reference}, in the perflab compare that measured both",
            }
            for entry in entries
        ]
    return [
        {
            "case": "generated inputs and call patterns" if e.case == FUZZING_CASE else e.case,
            "contender": e.contender,
            "css": "invalid" if e.status in INVALID else "",
            "status": e.status if e.case == FUZZING_CASE else result.equivalence_label(e.case, e.contender),
            "difference": e.difference or "",
            "note": e.note or "",
        }
        for e in result.equivalence
    ]


# ---- profiles -----------------------------------------------------------------------------------


def render_profiles(entry: CaseProfiles, title: str) -> str:
    """A page of one differential profile and both flame graphs (``perflab diff --html``)."""
    return templating.render(
        "profiles.html", title=title, profiles=_profiles(0, 0, entry), css="report.css", script="diffflame.js"
    )


def _profiles(section: int, k: int, entry: CaseProfiles) -> dict[str, Any]:
    diff = entry.diff
    sides = ((entry.reference, entry.reference_profile), (entry.other, entry.other_profile))
    return {
        "section": section,
        "k": k,
        "case": entry.case,
        "reference": entry.reference,
        "other": entry.other,
        "explain": diff.explain() if diff is not None else None,
        "notes": entry.notes + (diff.notes if diff else []),
        "diff": {"flame": _flame_data(diff), "table": _table(diff)} if diff is not None else None,
        "flames": [
            (name, flamegraph.render(profile, f"{entry.case} / {name}")) for name, profile in sides if profile.runs
        ],
    }


def diff_flame(diff: ProfileDiff) -> Markup:
    """The differential flame graph (diffflame.js draws it), for the web view's diff page."""
    return templating.macro("report_parts.html", "diff_flame")(_flame_data(diff))


def diff_table(diff: ProfileDiff) -> Markup:
    return templating.macro("report_parts.html", "diff_table")(_table(diff))


def _flame_data(diff: ProfileDiff) -> dict[str, Any]:
    """The differential tree as columns in depth-first order (siblings by name)."""
    paths = sorted(diff.nodes)  # tuples sort parents first, then children by name: depth-first order
    nodes = [diff.nodes[p] for p in paths]
    frames = [parse_frame(path[-1]) if path else None for path in paths]
    finite = lambda v: v if math.isfinite(v) else None
    return {
        "sides": [diff.a_name, diff.b_name],
        "name": [frame.name if frame else "the operation" for frame in frames],
        "where": [frame.location if frame and frame.file else "" for frame in frames],
        "depth": [len(p) for p in paths],
        "width": [(n.a + n.b) / 2 for n in nodes],
        "a": [n.a for n in nodes],
        "b": [n.b for n in nodes],
        "diff": [n.difference.value for n in nodes],
        "low": [finite(n.difference.low) for n in nodes],
        "high": [finite(n.difference.high) for n in nodes],
        # The tooltip's numbers, formatted here in the diff's unit (time, bytes or allocations).
        "aText": [diff.format(n.a) for n in nodes],
        "bText": [diff.format(n.b) for n in nodes],
        "diffText": [diff.signed(n.difference.value) for n in nodes],
        "intervalText": [
            f"[{diff.signed(n.difference.low)}, {diff.signed(n.difference.high)}]"
            if math.isfinite(n.difference.low) and math.isfinite(n.difference.high)
            else ""
            for n in nodes
        ],
        "selfText": [diff.signed(n.b_self - n.a_self) for n in nodes],
        "measure": diff.measure,
        "words": ["slower", "faster"] if diff.unit == "samples" else ["more", "less"],
    }


def _table(diff: ProfileDiff, count: int = 8) -> dict[str, Any]:
    """The largest changes in self time (or memory) per call."""
    rows = [
        (
            " > ".join(parse_frame(p).name for p in n.path),
            diff.format(n.a_self),
            diff.format(n.b_self),
            diff.signed(n.b_self - n.a_self),
        )
        for n in diff.largest_self_changes(count)
    ]
    what = "time" if diff.unit == "samples" else "memory"
    return {"a_name": diff.a_name, "b_name": diff.b_name, "rows": rows, "what": what}


# ---- metadata -----------------------------------------------------------------------------------


def _metadata(result: RunResult) -> list[tuple[str, object]]:
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
        ("stopped", stopped.summary(result) or ""),  # "decided after 5 rounds", as the terminal says
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
    return rows
