"""The compare report in a real browser (Playwright + Debian's chromium): verdicts, charts, flame graphs.

One real ``perflab compare --html`` run (small budgets, but rounds enough for a verdict: two rounds
under load once read the 3x ``pad`` as 1.07x faster [0.00884x, 129x]) feeds every test: two contenders of a
generated benchmark file, one doing 3x the busy work of the other in ``pad``, and a case name
that tries to inject markup.
"""

import re

import pytest
from support.cli import VERDICT, run_perflab

EVIL = "E<img src=x onerror=window.pwned=1>"

BENCH = f"""
import json
import perflab

bench = perflab.Benchmark("report", description="report test", compare="exact")


@bench.case(name={EVIL!r})
def small():
    return {{"a": [1, 2, 3] * 10, "b": "x" * 40}}


def pad(n):
    for _ in range(n):
        pass


@bench.contender(reference=True)
def base(obj):
    pad(100)
    return json.dumps(obj)


@bench.contender
def slow(obj):
    pad(300)
    return json.dumps(obj)
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    bench = directory / "bench.py"
    bench.write_text(BENCH)
    out = directory / "report.html"
    result = run_perflab("compare", bench, "--html", out, *VERDICT, "--samples", "300", "--no-fuzz", timeout=300)
    assert out.exists(), result.stderr
    assert "report written to" in result.stderr
    return out


@pytest.fixture
def page(browser, report):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: (problems.append(dialog.message), dialog.dismiss()))
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(("file:", "about:"))
            else (problems.append(route.request.url), route.abort())
        ),
    )  # offline: nothing may leave the file
    page.goto(report.as_uri())
    yield page
    assert problems == []
    assert page.evaluate("window.pwned") is None
    page.close()


def flame_frames(page):
    """The embedded flame graph documents, once their script has drawn."""
    frames = []
    for element in page.query_selector_all("iframe.flame"):
        frame = element.content_frame()
        frame.wait_for_selector("body[data-ready=true]")
        frames.append((element, frame))
    return frames


def click_in_frame(page, element, frame, name):
    element.scroll_into_view_if_needed()
    where = frame.evaluate("(name) => window.perflabFlame.locate(name)", name)
    assert where is not None, f"{name} is not drawn"
    box = element.bounding_box()
    page.mouse.click(box["x"] + where["x"], box["y"] + where["y"])


def test_report_shows_verdicts_ratio_chart_distributions_and_equivalence(page):
    rows = page.locator("table.verdicts tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").nth(1).text_content() == "base"
    assert "reference" in rows.nth(0).text_content()
    slow = rows.nth(1).text_content()
    # the time ratio as the terminal prints it: 1.39x slower [1.33x, 1.45x]
    assert "slow" in slow and "equivalent" in slow and re.search(r"\d[\d.,]*x slower \[\d[\d.,]*x, \d[\d.,]*x\]", slow)
    assert rows.nth(0).locator("td").nth(0).text_content() == EVIL  # shown literally, not as markup
    assert page.locator("svg.chart circle").count() >= 3  # ratio point + distribution dots
    assert page.locator("table.equivalence").is_visible()
    assert "per call" in page.text_content("p.explain")


def test_flame_graphs_zoom_search_icicle_and_sandwich(page):
    frames = flame_frames(page)
    assert len(frames) == 2  # one per side
    element, frame = frames[1]
    click_in_frame(page, element, frame, "pad")
    assert frame.evaluate("window.perflabFlame.state()")["zoomed"] == "pad"
    frame.fill("#search", "^pad$")
    frame.wait_for_function("document.getElementById('matched').textContent !== ''")
    assert re.match(r"matched: \d+\.\d% of samples", frame.text_content("#matched"))
    frame.click("#icicle")
    assert frame.evaluate("window.perflabFlame.state()")["icicle"] is True
    frame.click("#sandwich")
    state = frame.evaluate("window.perflabFlame.state()")
    assert state["sandwich"] == "pad" and state["callers"] >= 2
    frame.click("#sandwich-close")
    assert frame.evaluate("window.perflabFlame.state()")["sandwich"] is None


def test_differential_flame_graph_zooms_and_explains(page):
    page.locator(".diffflame canvas").scroll_into_view_if_needed()
    state = page.evaluate("window.perflabDiff.state(0)")
    assert state["zoomed"] == "the operation" and state["drawn"] >= 3
    where = page.evaluate("window.perflabDiff.locate(0, 'pad')")
    assert where is not None
    page.mouse.move(where["x"], where["y"])
    tooltip = page.locator("#diff-tooltip")
    assert tooltip.is_visible() and "difference +" in tooltip.text_content()  # pad is slower in 'slow'
    page.mouse.click(where["x"], where["y"])
    assert page.evaluate("window.perflabDiff.state(0)")["zoomed"] == "pad"
    assert "zoomed:" in page.text_content(".diff-crumbs")
    page.click(".diff-reset")
    assert page.evaluate("window.perflabDiff.state(0)")["zoomed"] == "the operation"
