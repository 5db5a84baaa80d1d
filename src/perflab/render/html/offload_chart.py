"""The offload what-if's size chart: the predicted speedup against input size, both on log axes,
as an inline SVG (no script, nothing from the network) under the flame graph of ``profile --html``
and of a stored profile in the web view.

It draws the ``Offload`` the terminal prints (perflab.profile.offload): the curve through its size
points, their 95% interval as a band, the line of no difference (1x), Amdahl's bound, the
break-even size and the profiled call's size. This module computes the coordinates and the
strings; templates/offload.html lays them out, autoescaped (frame patterns and device names are
the user's).
"""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup

from perflab.profile.offload import Offload, format_size_factor, format_speedup
from perflab.render.html import templating
from perflab.render.html.axes import log_ticks
from perflab.units import format_bytes, format_ratio_estimate

WIDTH, HEIGHT = 800, 300
LEFT, RIGHT, TOP, BOTTOM = 96, 200, 20, 44  # margins: tick labels left and below, line labels right


def chart_markup(offload: Offload) -> Markup:
    """The chart's section, for a page that embeds it (the flame graph page, the web view)."""
    return templating.macro("offload.html", "size_chart")(size_chart(offload))


def size_chart(offload: Offload) -> dict[str, Any]:
    """Every coordinate and string of the chart (pixels in a WIDTH x HEIGHT view box)."""
    factors = [p.factor for p in offload.sizes]
    speedups = [x for p in offload.sizes for x in (p.speedup.low, p.speedup.value, p.speedup.high)]
    amdahl = offload.amdahl.value if math.isfinite(offload.amdahl.value) else None
    shown = [x for x in [*speedups, 1.0, amdahl or 1.0] if math.isfinite(x) and x > 0]
    lo, hi = min(shown) / 1.15, max(shown) * 1.15
    f_lo, f_hi = min(factors), max(factors)
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(factor: float) -> float:
        return LEFT + (math.log(factor) - math.log(f_lo)) / (math.log(f_hi) - math.log(f_lo)) * plot_width

    def y(speedup: float) -> float:
        clamped = min(max(speedup, lo), hi)  # an infinite bound (a free device) reaches the top
        return TOP + (math.log(hi) - math.log(clamped)) / (math.log(hi) - math.log(lo)) * plot_height

    bytes_in = offload.work.bytes_in
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "plot": {"left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": TOP + plot_height},
        "title": f"offload {offload.pattern} to {offload.device.describe()}",
        "summary": f"at this call's size the operation would be {format_speedup(offload.speedup)}; "
        f"Amdahl's bound {format_speedup(offload.amdahl)}",
        "curve": [(x(p.factor), y(p.speedup.value)) for p in offload.sizes],
        "band": [(x(p.factor), y(p.speedup.high)) for p in offload.sizes]
        + [(x(p.factor), y(p.speedup.low)) for p in reversed(offload.sizes)],
        "points": [
            (x(p.factor), y(p.speedup.value), f"{_size(p.factor, bytes_in)}: {format_speedup(p.speedup)}")
            for p in offload.sizes
        ],
        "one": y(1.0),
        "amdahl": None
        if amdahl is None
        else {"y": y(amdahl), "label": f"Amdahl's bound {format_ratio_estimate(1 / amdahl)}"},
        "measured": {"x": x(1.0), "label": "this call"},
        "break_even": _break_even(offload, x, f_lo, f_hi),
        "x_ticks": [(x(f), _size(f, bytes_in)) for f in factors[::2]],
        "y_ticks": [(y(t), _speedup_tick(t)) for t in log_ticks(lo, hi, y)],
        "x_title": "input size (bytes moved to the device)" if bytes_in else "input size (relative to this call)",
    }


def _speedup_tick(speedup: float) -> str:
    """A speedup on the axis as the ratios read everywhere: '2.00x faster', '5.00x slower', '1x'."""
    if speedup == 1:
        return "1x"
    return format_ratio_estimate(1 / speedup)


def _size(factor: float, bytes_in: float) -> str:
    """A size on the chart: in bytes moved in when the call moves any, else relative to the call."""
    return format_bytes(factor * bytes_in) if bytes_in else format_size_factor(factor)


def _break_even(offload: Offload, x: Any, f_lo: float, f_hi: float) -> dict[str, Any]:
    """The break-even size's marker: a line where it falls on the chart, a note where it does not."""
    factor = offload.break_even
    if factor is None:
        return {"x": None, "label": "offloading never pays (the link's time per byte exceeds the software's)"}
    if factor == 0:
        return {"x": None, "label": "offloading pays at every size (no fixed cost to amortize)"}
    size = _size(factor, offload.work.bytes_in)
    if f_lo <= factor <= f_hi:
        return {"x": x(factor), "label": f"break-even {size}"}
    side = "below" if factor < f_lo else "beyond"
    return {"x": None, "label": f"break-even {size} ({format_size_factor(factor)} this call's size, {side} the chart)"}
