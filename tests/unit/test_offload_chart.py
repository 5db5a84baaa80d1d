"""The offload what-if's size chart (perflab.render.html.offload_chart): its geometry (log axes, the
break-even line where the curve crosses 1x, a rising curve inside its band, under Amdahl's bound),
and the markup of the flame graph page, with the user's strings escaped."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from perflab.profile.model import Profile
from perflab.profile.offload import PRESETS, Work, parse_device, predict
from perflab.render.html.flamegraph import render
from perflab.render.html.offload_chart import size_chart

EVIL = "<script>window.pwned=1</script>"
KIB32 = 32 * 1024


def _offload(device: str = "pcie3x16,fixed=2000", pattern: str = "escape", frame: str = "escape"):
    runs = [Counter({("measured_region", "dumps", frame): 60 + i, ("measured_region", "dumps"): 40}) for i in range(3)]
    return runs, predict(runs, [64e-6, 66e-6, 65e-6], pattern, parse_device(device), Work(KIB32, KIB32, KIB32))


def test_the_break_even_line_is_where_the_curve_crosses_one_on_a_log_axis():
    _, offload = _offload()
    chart = size_chart(offload)
    assert offload.break_even is not None and 1 < offload.break_even < 64
    plot = chart["plot"]
    # a log axis from 1/64 to 64 of this call's size
    expected = plot["left"] + math.log(offload.break_even * 64) / math.log(64 * 64) * (plot["right"] - plot["left"])
    assert chart["break_even"]["x"] == pytest.approx(expected)
    assert chart["break_even"]["label"] == "break-even 54.9 KiB"
    # the curve is below 1x (under the line: larger y) left of it and above right of it
    below = [y for x, y in chart["curve"] if x < chart["break_even"]["x"]]
    above = [y for x, y in chart["curve"] if x > chart["break_even"]["x"]]
    assert below and above and all(y > chart["one"] for y in below) and all(y < chart["one"] for y in above)
    assert chart["measured"]["x"] == pytest.approx((plot["left"] + plot["right"]) / 2)  # this call: size 1x


def test_the_curve_rises_with_size_inside_its_band_and_under_amdahls_bound():
    _, offload = _offload("pcie4x4,depth=15")
    chart = size_chart(offload)
    xs, ys = zip(*chart["curve"])
    assert list(xs) == sorted(xs) and len(set(xs)) == len(xs) == len(offload.sizes)
    assert all(later <= earlier for earlier, later in zip(ys, ys[1:]))  # speedup up, y down
    band = chart["band"]
    highs, lows = band[: len(xs)], band[len(xs) :][::-1]
    for (x, y), (x_high, y_high), (x_low, y_low) in zip(chart["curve"], highs, lows):
        assert x == x_high == x_low and y_high <= y <= y_low
    assert chart["amdahl"]["y"] < min(ys)
    top, bottom = chart["plot"]["top"], chart["plot"]["bottom"]
    assert all(top <= y <= bottom for _, y in band)


def test_a_device_that_never_pays_or_always_pays_says_so_instead_of_a_line():
    _, never = _offload("link=0.01GB/s")
    assert size_chart(never)["break_even"] == {
        "x": None,
        "label": "offloading never pays (the link's time per byte exceeds the software's)",
    }
    runs = [Counter({("main", "escape"): 10})]
    free = predict(runs, [1e-6], "escape", PRESETS["on-core"], Work(0, 0, 0))
    chart = size_chart(free)  # an infinite bound: no Amdahl line, the curve at the top, sizes relative
    assert chart["amdahl"] is None and chart["break_even"]["x"] is None
    assert chart["x_ticks"][0][1] == "1/64x" and chart["x_title"] == "input size (relative to this call)"


def test_the_flame_graph_page_draws_the_chart_with_the_users_strings_escaped():
    runs, offload = _offload(pattern=f"*{EVIL}*", frame=f"{EVIL} (bench.py:3)")
    html = render(Profile(runs, {"sampler": "py-spy"}), "t", None, offload)
    assert EVIL not in html and "offload *&lt;script&gt;window.pwned=1&lt;/script&gt;* to pcie3x16" in html
    assert "<svg class='offload-chart'" in html and "class='break-even'" in html and "break-even 54.9 KiB" in html
    assert "<svg class='offload-chart'" not in render(Profile(runs, {"sampler": "py-spy"}), "t")
