"""The HTML flame graph: one offline file, escaped, and working in a real browser (Playwright + Debian's chromium)."""

import re
from collections import Counter

import pytest
from support.cli import run_perflab

from perflab.profile.model import Profile
from perflab.profile.offload import Work, parse_device, predict
from perflab.profile.shares import frame_shares
from perflab.render.html.flamegraph import page_data
from perflab.render.html.flamegraph import render as render_html

EVIL = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


def sample_profile() -> Profile:
    op = "op (<project>/bench.py:10)"
    hot = "hot (<project>/bench.py:20)"
    cold = "cold (<project>/bench.py:30)"
    native = "encoder_call (_json.c)"
    evil = f"{EVIL} (<project>/{EVIL}.py:1)"
    run = Counter({(op, hot, native): 50, (op, hot): 10, (op, cold, hot): 20, (op, cold): 15, (op, evil): 4, (): 1})
    return Profile(
        [run, run, run],
        {
            "sampler": "py-spy",
            "sampler_version": "py-spy 0.4.3",
            "mode": "cpu",
            "rate": 200,
            "native": True,
            "python": {"version": "3.11.7", "build": "x"},
            "benchmark": "b",
            "case": "C",
            "contender": EVIL,
            # --metric cache's counts of the same cell (perflab.profile.simulated_cache), by callgrind's names
            "simulated_cache": {"encoder_call": {"Ir": 34.0, "D1mr": 1.0, "DLmr": 0.5, "Bcm": 2.0}},
        },
    )


@pytest.fixture
def page(browser, tmp_path):
    yield from opened(browser, tmp_path, render_html(sample_profile(), title="b / C"))


def opened(browser, tmp_path, html):
    """The page in the browser, offline; after the test, no script error, dialog, request or injection."""
    path = tmp_path / "flame.html"
    path.write_text(html)
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: (problems.append(dialog.message), dialog.dismiss()))
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith("file:")
            else (problems.append(route.request.url), route.abort())
        ),
    )  # offline: no request may leave the file
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready=true]")
    yield page
    assert problems == []
    assert page.evaluate("window.pwned") is None
    page.close()


def state(page):
    return page.evaluate("window.perflabFlame.state()")


def test_the_page_is_self_contained_and_escapes_user_text():
    page = render_html(sample_profile(), title=f"b / C / {EVIL}")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing loaded from outside
    assert "<script>window.pwned" not in page and "<img src=x" not in page
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "&lt;/script&gt;" in page  # the title, HTML-escaped


def test_page_data_lists_each_frame_once_with_its_shares():
    profile = sample_profile()
    data = page_data(profile, "t", frame_shares(profile.runs))
    names = data["frames"]["name"]
    assert names.count("hot") == 1 and data["nodes"]["frame"].count(names.index("hot")) == 2  # two callers
    hot = names.index("hot")
    self_share, low, high = data["stats"][6 * hot : 6 * hot + 3]
    assert self_share == pytest.approx(30 / 100) and low <= self_share <= high
    assert data["frames"]["line"][hot] == 20 and data["frames"]["file"][hot] == "<project>/bench.py"
    assert data["nodes"]["total"][0] == profile.samples


def test_browser_tooltip_shows_shares_intervals_and_file_line(page):
    where = page.evaluate("window.perflabFlame.locate('hot')")
    page.mouse.move(where["x"], where["y"])
    tooltip = page.locator("#tooltip")
    assert tooltip.is_visible()
    text = tooltip.text_content()
    assert "<project>/bench.py:20" in text
    assert re.search(r"self 30\.0% \[\d+\.\d–\d+\.\d\], total 80\.0% \[\d+\.\d–\d+\.\d\] \(95% CI over 3 runs\)", text)


def test_browser_tooltip_of_a_c_frame_shows_its_simulated_misses(page):
    tooltip = page.locator("#tooltip")
    for name, shown in (("encoder_call", True), ("hot", False)):
        where = page.evaluate("(name) => window.perflabFlame.locate(name)", name)
        page.mouse.move(where["x"], where["y"])
        assert tooltip.is_visible()
        line = (
            "simulated per call (cachegrind, --metric cache): 1 L1 data misses, 0.5 LL misses, 2 branch mispredictions"
        )
        assert (line in tooltip.text_content()) is shown  # a Python frame: no counts of its own


def test_browser_click_zooms_and_reset_returns(page):
    where = page.evaluate("window.perflabFlame.locate('cold')")
    page.mouse.click(where["x"], where["y"])
    assert state(page)["zoomed"] == "cold"
    assert "zoomed: measured_region ▸ op ▸ cold" in page.text_content("#crumbs")
    page.click("#reset")
    assert state(page)["zoomed"] == "measured_region"


def test_browser_search_reports_the_share_matched(page):
    page.fill("#search", "^hot$")
    page.wait_for_function("document.getElementById('matched').textContent !== ''")
    assert page.text_content("#matched") == "matched: 80.0% of samples"  # 50 + 10 + 20 of 100, once each
    page.fill("#search", "bench\\.py:(10|30)")
    page.wait_for_function("document.getElementById('matched').textContent.includes('99.0%')")


def test_browser_icicle_and_sandwich_views(page):
    before = page.evaluate("window.perflabFlame.locate('op')")
    page.click("#icicle")
    after = page.evaluate("window.perflabFlame.locate('op')")
    assert state(page)["icicle"] and after["y"] < before["y"]  # the root moved from the bottom to the top
    where = page.evaluate("window.perflabFlame.locate('hot')")
    page.mouse.click(where["x"], where["y"])
    page.click("#sandwich")
    current = state(page)
    assert current["sandwich"] == "hot" and current["callers"] >= 3 and current["callees"] >= 2
    assert page.evaluate("window.perflabFlame.locate('cold', 'callers')") is not None  # a caller of hot
    assert page.evaluate("window.perflabFlame.locate('encoder_call', 'callees')") is not None
    page.click("#sandwich-close")
    assert state(page)["sandwich"] is None


def test_browser_shows_user_text_literally(page):
    evil_name = EVIL
    where = page.evaluate("(name) => window.perflabFlame.locate(name)", evil_name)
    page.mouse.move(where["x"], where["y"])
    assert evil_name in page.text_content("#tooltip")


def test_browser_draws_the_offload_size_chart_with_its_break_even(browser, tmp_path):
    profile = sample_profile()
    offload = predict(profile.runs, [65e-6] * 3, "hot", parse_device("pcie3x16,fixed=2000"), Work(32768, 32768, 32768))
    for page in opened(browser, tmp_path, render_html(profile, "b / C", None, offload)):
        chart = page.locator("svg.offload-chart")
        box = chart.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100  # laid out, not collapsed
        label = page.locator(".break-even-label")
        assert label.is_visible() and label.text_content() == f"break-even {offload.break_even * 32:.3g} KiB"
        line, text = page.locator("line.break-even").bounding_box(), label.bounding_box()
        assert abs(line["x"] - (text["x"] + text["width"] / 2)) < 2  # the label centred on its line
        assert page.locator("polyline.curve").bounding_box()["width"] > 300


HOT_LINE_BENCH = """
import perflab

bench = perflab.Benchmark("heat")

@bench.case(items=1)
def SMALL():
    return 20000

@bench.contender
def spin(n):
    label = "</script><script>window.pwned=1</script>"
    total = sum(i * i for i in range(n))  # the hot line
    return total, label
"""


def test_browser_click_on_a_python_frame_shows_its_source_with_the_hot_line_marked(browser, tmp_path):
    """A real --lines profile, as cheap as one can be (in-process sampler, one run of 60 samples: one
    worker process, ~4 s; up to ~15 s under heavy load): clicking spin shows its lines, the hot one
    marked, with its shares printed."""
    bench = tmp_path / "bench.py"
    bench.write_text(HOT_LINE_BENCH)
    html = tmp_path / "lines.html"
    sampling = ["--sampler", "inprocess", "--samples", "60", "--rate", "200", "--runs", "1", "--timeout", "30"]
    result = run_perflab("profile", bench, "--lines", *sampling, "--html", html)
    assert result.returncode == 0, result.stderr
    for page in opened(browser, tmp_path, html.read_text()):
        assert page.locator("#source-lines").is_hidden()
        where = page.evaluate("window.perflabFlame.locate('spin')")
        page.mouse.move(where["x"], where["y"])
        assert "this line, all calls: self " in page.text_content("#tooltip")  # a frame is one line of spin
        page.mouse.click(where["x"], where["y"])
        assert state(page)["source"] == "spin"
        assert page.text_content("#source-title").startswith("Source of spin (<project>/bench.py): self ")
        rows = page.locator("#source-lines tbody tr")
        texts = rows.locator("td.code").all_text_contents()
        assert texts[0] == "@bench.contender" and texts[-1] == "    return total, label"
        hot = rows.filter(has_text="sum(i * i")
        assert hot.get_attribute("class") == "sampled"
        assert re.fullmatch(r"\d+\.\d% \[\d+\.\d–\d+\.\d\]", hot.locator("td.share").nth(1).text_content())
        assert float(hot.evaluate("row => getComputedStyle(row).getPropertyValue('--heat')")) > 0.5
        definition = rows.filter(has_text="def spin(n):")
        assert definition.get_attribute("class") in (None, "")  # no sample: unmarked, no number
        assert definition.locator("td.share").all_text_contents() == ["", ""]
        assert "<script>window.pwned=1</script>" in rows.filter(has_text="label =").text_content()
