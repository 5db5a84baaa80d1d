"""The web view in a real browser (Playwright driving Debian's chromium) against a real `perflab serve`
process, and the published site from file://: filtering, charts, picking two points, comparisons,
flame graphs, marks; no console errors, nothing injected by hostile names, nothing from the network."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")
expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

from support.cli import run_perflab  # noqa: E402 - after the skips above
from support.served_web import serving  # noqa: E402
from support.web_store import build_store  # noqa: E402

TOKEN = "browser-test-token-0123456789"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("webstore") / "perflab.db"
    return path, build_store(path)


@pytest.fixture(scope="module")
def server(store):
    with serving(store[0], TOKEN) as url:
        yield url


def watched(browser, allowed_prefixes):
    """A page that records script errors, console errors, dialogs and any request leaving the site."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.problems = []
    page.on("pageerror", lambda error: page.problems.append(f"pageerror: {error}"))
    page.on("console", lambda m: page.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("dialog", lambda dialog: (page.problems.append(dialog.message), dialog.dismiss()))
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(allowed_prefixes)
            else (page.problems.append(f"network: {route.request.url}"), route.abort())
        ),
    )
    return page


def finished(page):
    assert page.problems == []
    assert page.evaluate("window.pwned") is None
    page.close()


@pytest.fixture
def served(browser, server):
    page = watched(browser, (server, "data:", "about:"))
    page.goto(f"{server}/?token={TOKEN}")  # sets the cookie, then every page reads with it
    yield page
    finished(page)


def test_the_overview_filters_with_htmx_and_keeps_the_state_in_the_url(served, server):
    rows = served.locator("#series-table tbody tr[data-text]")
    assert rows.count() == 5
    served.fill("#q", "small base")
    expect(served.locator("#series-table tbody tr[data-text]")).to_have_count(2)
    assert parse_qs(urlsplit(served.url).query)["q"] == ["small base"]
    served.check("#regressions")
    expect(served.locator("#shown")).to_have_text(re.compile(r"^1 of"))
    assert parse_qs(urlsplit(served.url).query)["regressions"] == ["1"]
    served.goto(served.url)  # the URL alone restores the state
    assert served.locator("#series-table tbody tr[data-text]").count() == 1
    assert served.input_value("#q") == "small base" and served.is_checked("#regressions")


def test_a_series_draws_its_points_and_two_picked_points_open_their_comparison(served, store):
    ids = store[1]
    served.fill("#q", "small base")
    expect(served.locator("#series-table tbody tr[data-text]")).to_have_count(2)
    served.locator("#series-table tbody tr.regressed a", has_text="parse").first.click()
    served.wait_for_selector("body[data-ready=true]")
    assert served.locator("#chart canvas").count() == 1
    assert served.locator("#chart .band-slower").count() == 1  # the step, as a band
    box = served.locator("#chart .u-over").bounding_box()
    points = served.evaluate("JSON.parse(document.getElementById('series-data').textContent).points.run.length")
    assert points == 12

    def click_point(index):
        served.mouse.move(box["x"] + box["width"] * index / (points - 1), box["y"] + box["height"] / 2)
        served.mouse.click(box["x"] + box["width"] * index / (points - 1), box["y"] + box["height"] / 2)

    click_point(6)
    served.wait_for_selector("#picked .pick")
    assert served.locator("#chart .tooltip").is_visible()
    click_point(7)
    link = served.locator("#picked a.compare-link")
    assert f"run {ids['before']}" in link.inner_text() and f"run {ids['after']}" in link.inner_text()
    link.click()
    served.wait_for_url(re.compile(rf"/compare/{ids['before']}/{ids['after']}$"))
    assert "Unpaired" in served.inner_text(".pairing")
    assert served.locator("table.comparison tbody tr").count() == 4


def test_the_memory_charts_draw_bytes_per_call_with_the_step(served):
    served.fill("#q", "small base")
    expect(served.locator("#series-table tbody tr[data-text]")).to_have_count(2)
    served.locator("#series-table tbody tr.regressed a", has_text="parse").first.click()
    served.wait_for_selector("body[data-ready=true]")
    for name in ("allocated", "peak"):  # memray's bytes per call, charted with the step that doubled them
        chart = served.locator(f".metric-chart[data-metric={name}]")
        assert chart.locator("canvas").count() == 1 and chart.locator(".band-slower").count() == 1
    memory = served.locator(".metric-chart[data-metric=allocated] .u-over")
    memory.scroll_into_view_if_needed()
    area = memory.bounding_box()
    served.mouse.move(area["x"] + area["width"] - 2, area["y"] + area["height"] / 2)  # the last run: 8 KiB + 8 B
    tooltip = served.locator(".metric-chart[data-metric=allocated] .tooltip")
    expect(tooltip).to_contain_text("8.01 KiB [8 KiB, 8.02 KiB]")


def test_a_change_point_is_acknowledged_from_the_page(served):
    served.goto(served.url.split("?")[0] + "regressions")
    served.locator("a", has_text="SMALL / base").first.click()
    served.fill(".mark-form input[name=note]", "expected: new tokenizer")
    served.click(".mark-form button[value=acknowledged]")
    served.wait_for_selector(".mark-box .mark")
    assert served.inner_text(".mark-box .mark") == "acknowledged"
    served.goto(served.url.split("/series/")[0] + "/regressions")
    assert "expected: new tokenizer" in served.inner_text("table.changes")


def test_a_change_point_is_marked_by_the_plain_form_without_javascript(browser, server):
    # the form posts itself when htmx is off or not loaded yet: the browser's own same-origin post
    # (Origin, Sec-Fetch-Site) must pass the cross-origin check, and the redirect shows the mark
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.problems = []
    page.goto(f"{server}/regressions?token={TOKEN}")
    page.locator("a", has_text="SMALL / base").first.click()
    page.fill(".mark-form input[name=note]", "plain form")
    with page.expect_navigation():
        page.click(".mark-form button[value=ignored]")
    assert "/series/" in page.url and page.inner_text(".mark-box .mark") == "ignored"
    assert page.problems == []
    context.close()


def test_a_stored_profile_zooms_and_searches(served, store):
    served.goto(served.url.split("?")[0].rstrip("/") + f"/runs/{store[1]['after']}")
    served.locator("a", has_text="SMALL / base").last.click()
    served.wait_for_selector("body[data-ready=true]")
    canvas = served.locator("#flame").bounding_box()
    served.mouse.click(canvas["x"] + 20, canvas["y"] + canvas["height"] - 9 - 18)  # the frame above the root
    expect(served.locator("#crumbs")).not_to_be_empty()
    served.fill("#search", "tokenize")
    expect(served.locator("#matched")).to_contain_text("%")
    # the offload what-if asked from the page's form: the size chart drawn under the flame graph
    served.fill(".offload-form input[name=offload]", "tokenize")
    served.fill(".offload-form input[name=transfer]", "1KiB")
    served.click(".offload-form button[type=submit]")
    served.wait_for_selector("svg.offload-chart")
    assert parse_qs(urlsplit(served.url).query)["offload"] == ["tokenize"]
    assert served.locator("svg.offload-chart").bounding_box()["width"] > 300
    expect(served.locator(".break-even-label")).to_have_text(re.compile(r"^break-even [0-9.]+ (B|KiB)$"))


def test_the_differential_flame_graph_of_the_step(served, store):
    ids = store[1]
    served.goto(served.url.split("?")[0].rstrip("/") + f"/compare/{ids['before']}/{ids['after']}")
    served.locator("a", has_text="differential flame graph").click()
    served.wait_for_selector(".diffflame canvas")
    assert "window.pwned" in served.inner_text(".explain")


@pytest.fixture(scope="module")
def site(store, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "public"
    result = run_perflab("publish", "--out", out, "--db", store[0], timeout=300)
    assert result.returncode == 0, result.stderr
    return out


def test_the_published_site_works_from_file_urls(browser, site):
    page = watched(browser, ("file:", "data:", "about:"))
    page.goto((site / "index.html").as_uri())
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#series-table tbody tr[data-text]:visible").count() == 5
    page.fill("#q", "pwned")
    expect(page.locator("#series-table tbody tr[data-text]:not([hidden])")).to_have_count(3)
    page.locator("#series-table tbody tr.regressed:not([hidden]) a", has_text="parse").first.click()
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#chart canvas").count() == 1 and page.locator("#chart .band-slower").count() == 1
    page.locator("table.changes a", has_text="compare").click()
    page.wait_for_selector(".pairing")
    page.go_back()
    page.locator("a", has_text="Change points").click()
    page.wait_for_selector("table.changes")
    finished(page)
