"""Each page of the web view as HTML, from an open store: the same functions serve and publish."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import Markup

from perflab.metrics import INSTRUCTIONS, MEMORY
from perflab.profile.diff import diff_profiles
from perflab.profile.model import IncomparableProfiles, Profile
from perflab.profile.offload import (
    DEFAULT_DEVICE,
    Offload,
    OffloadError,
    parse_device,
    parse_transfer,
    parse_units,
    predict_from,
    work_of,
)
from perflab.profile.shares import frame_shares
from perflab.render.html import report as report_html
from perflab.render.html.flamegraph import page_data, viewer_markup
from perflab.render.html.offload_chart import chart_markup
from perflab.render.printable import xml_text
from perflab.render.terminal import history
from perflab.results.model import RunResult
from perflab.results.schema import ALLOCATED_METRIC, PEAK_METRIC
from perflab.results.store import Store
from perflab.web.catalog import ChangePoint, Filters, Series, all_changes, iso_time
from perflab.web.run_pair import RunComparison
from perflab.web.site import (
    Links,
    cell_id,
    change_entries,
    change_payload,
    interval_text,
    machines_and_pythons,
    metric_payload,
    render,
    series_identity,
    series_payload,
)


def overview(links: Links, series: list[Series], filters: Filters, can_mark: bool) -> str:
    machines, pythons = machines_and_pythons(series)
    shown = [s for s in series if filters.keep(s)]
    return render(
        "overview.html",
        links,
        series=shown,
        total=len(series),
        filters=filters,
        machines=machines,
        pythons=pythons,
        can_mark=can_mark,
    )


def summary(links: Links, series: Series) -> dict[str, Any]:
    """One overview row as JSON (``/api/series``)."""
    latest, change = series.latest, series.latest_change
    return {
        **series_identity(series),
        "runs": len(series.points),
        "href": links.series(series.key.id),
        "latest": {
            "run": latest.run_id,
            "label": latest.label,
            "median": latest.median,
            "low": latest.low,
            "high": latest.high,
            "text": interval_text(latest.median, latest.low, latest.high),
            "struck": latest.struck,
        },
        "latest_change": change_payload(change) if change else None,
        "regressed": series.regressed,
    }


# The charts of other metrics under the time chart: the store's metric_values name, the chart's title
# and how its values and steps read.
METRIC_CHARTS = {
    INSTRUCTIONS: ("Instructions per call (callgrind; whiskers: smallest and largest process)", history.INSTRUCTIONS),
    ALLOCATED_METRIC: ("Bytes allocated per call (memray; whiskers: smallest and largest process)", history.MEMORY),
    PEAK_METRIC: ("Bytes live at the calls' peak (memray; whiskers: smallest and largest process)", history.MEMORY),
    MEMORY: ("Peak traced memory per call (tracemalloc; bytes)", history.MEMORY),
}


# A chart's figure that runs measuring the other one may lack: runs stored before the peak was kept
# have bytes allocated per call and no peak. Such runs are named "not recorded" under the chart,
# never drawn (as zero or otherwise) and never left out without a word.
RECORDED_WITH = {PEAK_METRIC: ALLOCATED_METRIC}


def metrics(store: Store, series: Series, links: Links) -> dict[str, dict[str, Any]]:
    """Instructions and memory per call stored for the series' runs (indexed: no run JSON is read),
    with their change points, and the runs a figure was not recorded for."""
    key = series.key
    measured = {name: store.metric_measurements(key.benchmark, name, key.case, key.contender) for name in METRIC_CHARTS}
    in_series = {point.run_id for point in series.points}
    found: dict[str, Any] = {}
    for name, (title, scale) in METRIC_CHARTS.items():
        payload = metric_payload(measured[name], series, links, scale)
        charted = set(payload["run"])
        payload["not_recorded"] = [
            m.run.label
            for m in measured.get(RECORDED_WITH.get(name, name), [])
            if m.run.id in in_series and m.run.id not in charted
        ]
        if payload["run"] or payload["not_recorded"]:
            found[name] = {**payload, "title": title, "unit": "instructions" if name == INSTRUCTIONS else "bytes"}
    return found


def series(
    links: Links,
    store: Store,
    series: Series,
    can_mark: bool,
    published_comparisons: set[tuple[int, int]] | None = None,
) -> str:
    payload = series_payload(series, links, metrics(store, series, links))
    if links.static_site:
        payload["compare_pages"] = {f"{a}-{b}": links.compare(a, b) for a, b in published_comparisons or ()}
    else:
        payload["compare_href"] = links.compare(0, 0).replace("/0/0", "/{a}/{b}")
    profiled = store.profiled_runs(series.key.benchmark, series.key.case, series.key.contender)
    diffable = {
        (c.before.run_id, c.after.run_id)
        for c in series.changes
        if c.before.run_id in profiled and c.after.run_id in profiled
    }
    return render("series.html", links, series=series, payload=payload, can_mark=can_mark, diffable=diffable)


def mark_fragment(links: Links, series: Series, change: ChangePoint, can_mark: bool) -> str:
    """The status cell of one change point (htmx swaps it in after a mark)."""
    return render("_mark.html", links, series=series, change=change, can_mark=can_mark)


def run(
    links: Links,
    store: Store,
    all_series: list[Series],
    run_id: int,
    shown: Callable[[RunResult], RunResult] = lambda result: result,
) -> str:
    """A run's page; ``shown``: what of the stored result it shows (a published site's, less)."""
    stored = store.run(run_id)
    if stored is None:
        raise KeyError(f"no stored run {run_id}")  # the routes check first: a missing run is their 404
    result = shown(store.result(run_id))
    member_of = [
        s
        for s in all_series
        if s.key.benchmark == stored.benchmark
        and s.key.machine_id == stored.machine_id
        and s.key.python_id == stored.python_id
        and any(p.run_id == run_id for p in s.points)
    ]
    report = report_html.render_section(0, report_html.Section(result))
    return render(
        "run.html",
        links,
        run=stored,
        result=result,
        series=member_of,
        report=report,
        profiles=store.profiles_of_run(run_id),
    )


def comparison(links: Links, store: Store, compared: RunComparison) -> str:
    both = set(store.profiles_of_run(compared.run_a.id)) & set(store.profiles_of_run(compared.run_b.id))
    return render("compare.html", links, c=compared, profiled=sorted(both))


def profile(links: Links, store: Store, run_id: int, cell: str, asked: Mapping[str, str] | None = None) -> str | None:
    """A stored profile's flame graph. Served (``asked``: the page's query, as profile's options
    offload, device, transfer, units), a form for the offload what-if and its size chart under it;
    published as a static file (None), neither."""
    found = _cell(store, run_id, cell)
    stored = store.run(run_id)
    if found is None or stored is None:
        return None
    case, contender = found
    stored_profile = store.profile(run_id, case, contender)
    if stored_profile is None:
        return None
    title = f"{stored.benchmark} / {case} / {contender} at {stored.label}"
    data = page_data(stored_profile, title, frame_shares(stored_profile.runs))
    offload, problem = _offload(stored_profile, asked or {})
    return render(
        "profile.html",
        links,
        title=title,
        viewer=Markup(viewer_markup(data)),
        run=stored,
        asked=None if asked is None else {name: asked.get(name, "") for name in OFFLOAD_FIELDS},
        chart=chart_markup(offload) if offload else None,
        problem=problem,
    )


OFFLOAD_FIELDS = ("offload", "device", "transfer", "units")


def _offload(profile: Profile, asked: Mapping[str, str]) -> tuple[Offload | None, str | None]:
    """The offload what-if the query asks of a stored profile (none without ``offload``), or why not.
    Stored profiles keep no request: the question is the reader's, asked of any stored profile."""
    pattern = asked.get("offload", "").strip()
    if not pattern:
        return None, None
    text = {name: asked.get(name, "").strip() for name in OFFLOAD_FIELDS}
    try:
        device = parse_device(text["device"]) if text["device"] else DEFAULT_DEVICE
        transfer = parse_transfer(text["transfer"]) if text["transfer"] else None
        units = parse_units(text["units"]) if text["units"] else None
        return predict_from(profile, pattern, device, work_of(device, transfer, units)), None
    except OffloadError as error:
        return None, str(error)


def profile_diff(links: Links, store: Store, a: int, b: int, cell: str) -> str | None:
    found = _cell(store, a, cell)
    run_a, run_b = store.run(a), store.run(b)
    if found is None or run_a is None or run_b is None or _cell(store, b, cell) is None:
        return None
    case, contender = found
    before, after = store.profile(a, case, contender), store.profile(b, case, contender)
    if before is None or after is None:
        return None
    timed = _timed(store, run_a, run_b, case, contender)
    names = (run_a.label, run_b.label) if run_a.label != run_b.label else (f"run {a}", f"run {b}")
    title = f"{run_a.benchmark} / {case} / {contender}: {names[1]} vs {names[0]}"
    try:
        diff = diff_profiles(before, after, names, timed=timed)
        note = ""
    except (IncomparableProfiles, ValueError) as error:
        diff, note = None, f"not diffed: {error}"
    body = (report_html.diff_flame(diff) + report_html.diff_table(diff)) if diff else ""
    return render(
        "diff.html",
        links,
        title=title,
        diff=diff,
        body=body,
        note=note,
        run_a=run_a,
        run_b=run_b,
        case=case,
        contender=contender,
    )


def _cell(store: Store, run_id: int, cell: str) -> tuple[str, str] | None:
    return next(
        ((case, contender) for case, contender in store.profiles_of_run(run_id) if cell_id(case, contender) == cell),
        None,
    )


def _timed(store: Store, run_a, run_b, case: str, contender: str) -> tuple[float, float] | None:
    """Each side's median time per call, which turns profile shares into time per call."""
    medians = {
        m.run.id: m.median
        for m in store.measurements(run_a.benchmark, case, contender)
        if m.run.id in (run_a.id, run_b.id)
    }
    return (medians[run_a.id], medians[run_b.id]) if len(medians) == 2 else None


def regressions(links: Links, series: list[Series]) -> str:
    return render("regressions.html", links, changes=all_changes(series))


def feed(links: Links, series: list[Series], base_url: str) -> str:
    """Atom 1.0: one entry per change point, newest first; ``base_url`` makes the links absolute."""
    entries = change_entries(all_changes(series), links)
    updated = max((e["when"] for e in entries), default=0.0)
    feed = render("feed.atom", links, entries=entries, base=base_url, updated=iso_time(updated), iso=iso_time)
    return xml_text(feed)  # an ESC or BEL in a name would make the whole feed invalid XML


def error(links: Links, message: str) -> str:
    return render("error.html", links, message=message)
