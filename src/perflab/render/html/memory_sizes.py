"""The memory-vs-size chart of the comparison report: bytes allocated per call, and bytes live at the
calls' peak, against each case's declared size, one line per contender.

A case's size is the work it declares (``@bench.case(bytes=...)`` or ``items=N``: what throughput is
per second of). With ``--metric memory`` measured on two or more sizes, the chart shows how each
contender's memory grows with its input: a streaming parser's stays flat while a whole-document
parser's grows with the document. Both axes are logarithmic, so constant memory is a horizontal
line and memory proportional to the size a line of slope 1, whatever the scale. Each point is the
median over memray's processes with their range as a whisker (perflab.analysis.counts.ProcessSpread).
"""

from __future__ import annotations

import math
from typing import Any

from perflab.analysis.counts import ALLOCATED, PEAK
from perflab.metrics import memory_figures
from perflab.results.model import RunResult
from perflab.units import format_bytes, format_count

WIDTH, HEIGHT = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 80, 170, 12, 34  # margins: value ticks, the contenders' names, size ticks
FLOOR = 1.0  # bytes: a log axis has no 0; a contender that allocates nothing is drawn at 1 B
PANELS = {ALLOCATED: "bytes allocated per call", PEAK: "bytes live at the calls' peak"}


def size_text(size: float, unit: str) -> str:
    """A case's size as its declared work reads: '1.2 MiB', '10,000 items'."""
    return format_bytes(size) if unit == "B" else f"{format_count(size)} {unit}"


def chart(result: RunResult) -> dict[str, Any] | None:
    """The chart's panels (coordinates and labels), or None when fewer than two sizes of one unit
    were measured with --metric memory."""
    figures = memory_figures(result)
    work = {case: declared for case, declared in result.work.items() if declared and declared[1] > 0}
    cases = [case for case in dict.fromkeys(case for case, _ in figures) if case in work]
    units = {work[case][0] for case in cases}
    if len(units) != 1 or len({work[case][1] for case in cases}) < 2:
        return None
    unit = units.pop()
    contenders = list(dict.fromkeys(contender for case, contender in figures if case in cases))
    sizes = sorted({work[case][1] for case in cases})
    panels = []
    for figure, title in PANELS.items():
        lines = {
            name: sorted(
                (work[case][1], case, figures[case, name][figure]) for case in cases if (case, name) in figures
            )
            for name in contenders
        }
        values = [max(v, FLOOR) for line in lines.values() for _, _, s in line for v in (s.low, s.high)]
        x = _log_axis(sizes[0], sizes[-1], LEFT, WIDTH - RIGHT)
        y = _log_axis(min(values), max(values), HEIGHT - BOTTOM, TOP)
        panels.append(
            {
                "title": title,
                "lines": [
                    {
                        "name": name,
                        "k": k,
                        "points": [
                            {
                                "x": x(size),
                                "y": y(max(spread.value, FLOOR)),
                                "low": y(max(spread.low, FLOOR)),
                                "high": y(max(spread.high, FLOOR)),
                                "title": f"{name} / {case} ({size_text(size, unit)}): {format_bytes(spread.value)} "
                                f"[{format_bytes(spread.low)}, {format_bytes(spread.high)}] {title}",
                            }
                            for size, case, spread in line
                        ],
                    }
                    for k, (name, line) in enumerate(lines.items())
                    if line
                ],
                "x_ticks": [(x(size), size_text(size, unit)) for size in sizes],
                "y_ticks": [(y(v), format_bytes(v)) for v in _value_ticks(min(values), max(values))],
            }
        )
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "bottom": HEIGHT - BOTTOM,
            "panels": panels}  # fmt: skip


def _log_axis(lo: float, hi: float, start: float, end: float):
    """value -> pixel on a logarithmic axis from ``start`` (lo) to ``end`` (hi); one value: the middle."""
    if hi <= lo:
        return lambda value: (start + end) / 2
    span = math.log(hi) - math.log(lo)
    return lambda value: start + (math.log(value) - math.log(lo)) / span * (end - start)


def _value_ticks(lo: float, hi: float) -> list[float]:
    """The smallest and largest value, and the powers of 2**10 (1 KiB, 1 MiB, ...) between them."""
    between = [2.0 ** (10 * e) for e in range(1, 5) if lo * 1.5 < 2.0 ** (10 * e) < hi / 1.5]
    return sorted({lo, hi, *between})
