"""The pages of the web view, rendered from Jinja2 templates: served by ``perflab serve`` and written
to files by ``perflab publish`` from the same code.

The only difference between the two is where pages live, which ``Links`` knows: ``/series/ID``
under the server, ``series/ID.html`` (relative, so the site works from ``file://``) when published.

Escaping: the environment autoescapes every ``{{ }}`` in HTML; data for scripts goes into
``<script type="application/json">`` through ``script_json`` (no ``<``, ``>`` or ``&`` survive), and
the scripts only ever set text. No template contains an inline script or style attribute, so the
server's Content-Security-Policy forbids both.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from typing import Any

import jinja2
from markupsafe import Markup

from perflab.analysis.changepoints import Point, detect
from perflab.analysis.counts import MIN_HISTORY_STEP
from perflab.render.html.report import VERDICT_CLASS
from perflab.render.html.templating import environment
from perflab.render.terminal.history import Scale, step_text
from perflab.units import format_ratio, format_time, format_times
from perflab.web.catalog import ChangePoint, RunPoint, Series

SPARK_WIDTH, SPARK_HEIGHT = 120, 24


def cell_id(case: str, contender: str) -> str:
    """A (case, contender) as a URL and file-name part (user strings never reach a path)."""
    return hashlib.sha256(json.dumps([case, contender]).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Links:
    """Addresses of pages and assets: absolute under ``perflab serve``; relative to a page at
    ``depth`` folders below the root in a published site."""

    static_site: bool = False
    depth: int = 0

    def below(self, depth: int) -> Links:
        return Links(self.static_site, depth)

    def _page(self, served: str, published: str) -> str:
        return ("../" * self.depth + published) if self.static_site else served

    def overview(self) -> str:
        return self._page("/", "index.html")

    def series(self, series_id: str) -> str:
        return self._page(f"/series/{series_id}", f"series/{series_id}.html")

    def run(self, run_id: int) -> str:
        return self._page(f"/runs/{run_id}", f"runs/{run_id}.html")

    def compare(self, a: int, b: int) -> str:
        return self._page(f"/compare/{a}/{b}", f"compare/{a}-{b}.html")

    def profile(self, run_id: int, case: str, contender: str) -> str:
        cell = cell_id(case, contender)
        return self._page(f"/profiles/{run_id}/{cell}", f"profiles/{run_id}-{cell}.html")

    def profile_diff(self, a: int, b: int, case: str, contender: str) -> str:
        cell = cell_id(case, contender)
        return self._page(f"/profiles/diff/{a}/{b}/{cell}", f"profiles/diff-{a}-{b}-{cell}.html")

    def regressions(self) -> str:
        return self._page("/regressions", "regressions.html")

    def feed(self) -> str:
        return self._page("/regressions.atom", "regressions.atom")

    def static(self, path: str) -> str:
        return self._page(f"/static/{path}", f"static/{path}")


def interval_text(value: float, low: float | None, high: float | None) -> str:
    """'853 ns [846 ns, 1.84 us]': a time per call with its 95% interval, as every output writes it."""
    return format_times(value, math.nan if low is None else low, math.nan if high is None else high)


def change_text(change: ChangePoint) -> str:
    """'1.10x slower [1.09x, 1.10x]', as ``perflab history`` says it."""
    ratio = change.step.ratio
    return format_ratio(ratio.value, ratio.low, ratio.high) + (" (tentative)" if change.step.tentative else "")


def sparkline(points: list[RunPoint]) -> Markup:
    """An inline SVG polyline of the medians (numbers only, nothing from the user)."""
    values = [p.median for p in points]
    lo, hi = min(values), max(values)
    span = (hi - lo) or (abs(hi) or 1.0)
    step = SPARK_WIDTH / max(len(values) - 1, 1)
    xy = " ".join(
        f"{i * step:.1f},{SPARK_HEIGHT - 2 - (v - lo) / span * (SPARK_HEIGHT - 4):.1f}" for i, v in enumerate(values)
    )
    return Markup(
        f"<svg class='spark' viewBox='0 0 {SPARK_WIDTH} {SPARK_HEIGHT}' width='{SPARK_WIDTH}' "
        f"height='{SPARK_HEIGHT}' aria-hidden='true'><polyline points='{xy}'/></svg>"
    )


def when_text(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(when)) + " UTC"


def _environment() -> jinja2.Environment:
    env = environment("perflab.web")
    env.filters.update(
        time=format_time,
        interval=interval_text,
        change=change_text,
        when=when_text,
        verdict_class=VERDICT_CLASS.get,
    )
    env.globals.update(sparkline=sparkline, cell_id=cell_id)
    return env


ENVIRONMENT = _environment()


def render(template: str, links: Links, **context: Any) -> str:
    return ENVIRONMENT.get_template(template).render(links=links, **context)


def machines_and_pythons(series: list[Series]) -> tuple[dict[str, str], dict[str, str]]:
    """Selector choices: fingerprint -> description, for every machine and interpreter stored."""
    machines = {s.key.machine_id: f"{s.machine} ({s.key.machine_id[:6]})" for s in series}
    pythons = {s.key.python_id: f"Python {s.python} ({s.key.python_id[:6]})" for s in series}
    return dict(sorted(machines.items(), key=lambda kv: kv[1])), dict(sorted(pythons.items(), key=lambda kv: kv[1]))


def series_identity(series: Series) -> dict[str, Any]:
    """What names a series in the JSON endpoints: its key, machine and interpreter."""
    return {
        "id": series.key.id,
        "benchmark": series.key.benchmark,
        "case": series.key.case,
        "contender": series.key.contender,
        "machine": series.machine,
        "machine_id": series.key.machine_id,
        "python": series.python,
        "python_id": series.key.python_id,
    }


def series_payload(series: Series, links: Links, metrics: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the series page draws (and ``/api/series/ID`` returns): points in commit order, change
    points with their commit range, and the other stored metrics."""
    points = series.points
    return {
        **series_identity(series),
        "unit": "seconds per call",
        "points": {
            "run": [p.run_id for p in points],
            "label": [p.label for p in points],
            "commit": [p.commit for p in points],
            "subject": [p.subject for p in points],
            "when": [p.when for p in points],
            "median": [p.median for p in points],
            "low": [p.low for p in points],
            "high": [p.high for p in points],
            "struck": [p.struck for p in points],
            "href": [links.run(p.run_id) for p in points],
        },
        "checks_left_out": series.checks,
        "changes": [change_payload(c, points.index(c.before), points.index(c.after)) for c in series.changes],
        "metrics": metrics or {},
    }


def change_payload(change: ChangePoint, before: int | None = None, after: int | None = None) -> dict[str, Any]:
    ratio = change.step.ratio
    return {
        "before": change.before.label,
        "after": change.after.label,
        "before_run": change.before.run_id,
        "after_run": change.after.run_id,
        "before_index": before,
        "after_index": after,
        "ratio": ratio.value,
        "low": ratio.low,
        "high": ratio.high,
        "tentative": change.step.tentative,
        "slower": change.slower,
        "text": change_text(change),
        "mark": None
        if change.mark is None
        else {"status": change.mark.status, "note": change.mark.note, "marked": change.mark.marked},
    }


def metric_payload(store_measurements: list, series: Series, links: Links, scale: Scale) -> dict[str, Any]:
    """The series' runs that counted another metric, as columns (like ``points``), and its change
    points found as ``perflab history --metric`` finds them (``scale``: how a step reads)."""
    runs = {p.run_id for p in series.points}
    rows = [m for m in store_measurements if m.run.id in runs]
    found = detect([Point(m.run.label, m.median, m.low, m.high) for m in rows], min_step=MIN_HISTORY_STEP)
    return {
        "run": [m.run.id for m in rows],
        "label": [m.run.label for m in rows],
        "median": [m.median for m in rows],
        "low": [m.low for m in rows],
        "high": [m.high for m in rows],
        "href": [links.run(m.run.id) for m in rows],
        "changes": [
            {
                "before": step.before,
                "after": step.after,
                "before_index": next(i for i in range(step.index - 1, -1, -1) if rows[i].run.label == step.before),
                "after_index": step.index,
                "ratio": step.ratio.value,
                "low": step.ratio.low,
                "high": step.ratio.high,
                "tentative": step.tentative,
                "slower": step.ratio.low > 1,
                "text": step_text(step, scale),
            }
            for step in found.steps
        ],
    }


def change_entries(pairs: list[tuple[Series, ChangePoint]], links: Links) -> list[dict[str, Any]]:
    """Change points of every series (``/api/regressions`` and the Atom feed), newest first."""
    return [
        {
            "series": s.key.id,
            "benchmark": s.key.benchmark,
            "case": s.key.case,
            "contender": s.key.contender,
            "machine": s.machine,
            "python": s.python,
            "href": links.series(s.key.id),
            "compare": links.compare(c.before.run_id, c.after.run_id),
            "when": c.after.when,
            "subject": c.after.subject,
            "open_regression": c.open_regression,
            **change_payload(c),
        }
        for s, c in pairs
    ]


def run_payload(run, result, series_ids: list[str], profiles: list[tuple[str, str]]) -> dict[str, Any]:
    """``/api/runs/ID``: the stored run's columns, its full results JSON, its series and profiles."""
    return {
        "id": run.id,
        "benchmark": run.benchmark,
        "label": run.label,
        "commit": run.git_commit,
        "branch": run.git_branch,
        "dirty": run.git_dirty,
        "commit_time": run.commit_time,
        "saved": run.created,
        "machine_id": run.machine_id,
        "python_id": run.python_id,
        "series": series_ids,
        "profiles": [{"case": case, "contender": contender} for case, contender in profiles],
        "result": result.to_json(),
    }


def comparison_payload(comparison) -> dict[str, Any]:
    """``/api/compare/A/B``: B relative to A per (case, contender), what the page says of it
    (``shown``, and ``note`` where the ratio is not that of the medians), and what differs."""

    def interval(i):
        return None if i is None else {"value": i.value, "low": _finite(i.low), "high": _finite(i.high)}

    return {
        "a": comparison.run_a.id,
        "b": comparison.run_b.id,
        "benchmark": comparison.run_a.benchmark,
        "paired": comparison.paired,
        "source": comparison.source,
        "pairing": comparison.pairing,
        "warnings": {side: [w.to_json() for w in found] for side, found in comparison.warnings.items()},
        "cells": [
            {
                "case": c.case,
                "contender": c.contender,
                "a": interval(c.a),
                "b": interval(c.b),
                "ratio_b_over_a": interval(c.ratio),
                "verdict": c.shown.verdict if c.shown else None,
                "shown": c.shown.to_json() if c.shown else None,
                "note": c.note,
            }
            for c in comparison.cells
        ],
        "differences": [{"what": d.what, "a": d.a, "b": d.b} for d in comparison.differences],
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
