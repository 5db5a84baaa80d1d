"""How the compare/demo HTML report presents results: time ratios as the terminal says them ("1.39x
faster [1.35x, 1.43x]"), geometric means the same way with their interval, axes that start where the data does, tick labels that never
collide, and the demo's summary of every benchmark's headline."""

from __future__ import annotations

import math
import re

import numpy as np

from perflab.analysis import estimates
from perflab.analysis.estimates import Comparison, Interval
from perflab.render.html import axes
from perflab.render.html import report as report_html
from perflab.results.model import NOT_EQUIVALENT, CaseComparison, Cell, Equivalence, ProcessRun, RunResult
from perflab.units import format_time

EVIL = "<img src=x onerror=window.pwned=1>"


def result_with(
    ratios: dict[str, float], benchmark: str = "crypto", not_equivalent: str | None = None, level: float = 1e-3
) -> RunResult:
    """A reference and one contender per entry of ``ratios`` (time of contender / time of reference)."""
    rng = np.random.default_rng(0)
    result = RunResult(
        benchmark=benchmark,
        file="b.py",
        reference="pyaes",
        settings={"alpha": 0.05, "min_effect": 0.01},
        metadata={},
        work={},
    )
    for name, ratio in {"pyaes": 1.0, **ratios}.items():
        cell = Cell("CTR", name)
        for index in range(6):
            process = level * ratio * math.exp(rng.normal(0, 0.02))
            cell.runs.append(ProcessRun(index + 1, 10, [process], list(process * np.exp(rng.normal(0, 0.01, 8)))))
        cell.estimates = estimates.estimate_cell(cell.process_values())
        result.cells.append(cell)
        status = NOT_EQUIVALENT if name == not_equivalent else ("reference" if name == "pyaes" else "equivalent")
        result.equivalence.append(
            Equivalence("CTR", name, status, "differs at byte 3" if status == NOT_EQUIVALENT else None)
        )
        if name != "pyaes":
            interval = Interval(ratio, ratio * 0.97, ratio * 1.03)
            result.comparisons.append(
                CaseComparison(
                    "CTR",
                    name,
                    "pyaes",
                    Comparison(interval, 1e-6, 6, 0.01),
                    1e-6,
                    estimates.FASTER if ratio < 1 else estimates.SLOWER,
                    valid=name != not_equivalent,
                )
            )
            result.geometric_means[name] = interval
    return result


def test_a_4500_times_speedup_reads_as_the_terminal_says_it_not_as_zero():
    html = report_html.render([report_html.Section(result_with({"cryptography": 1 / 4500}))], "t")
    assert "0.000 [0.000, 0.000]" not in html
    assert "geometric mean over cases, cryptography vs pyaes: 4,500x faster [4,369x, 4,639x]" in html
    assert "<th>vs pyaes [95% CI]</th>" in html


def test_time_ratios_are_shown_as_factors_of_at_least_one_with_their_direction():
    html = report_html.render([report_html.Section(result_with({"fast": 0.071, "slow": 1.22}))], "t")
    assert "14.1x faster [13.7x, 14.5x]" in html
    assert "1.22x slower [1.18x, 1.26x]" in html
    assert not re.search(r">0\.071", html)


def test_tick_labels_never_overlap_and_keep_the_line_of_no_difference():
    for lo, hi in ((0.45, 1.3), (0.9, 1.1), (1e-4, 2.0), (0.98, 1.02), (0.2, 50)):
        position = lambda v, lo=lo, hi=hi: 260 + (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) * 470
        ticks = axes.log_ticks(lo, hi, position)
        assert 1.0 in ticks
        gaps = [position(b) - position(a) for a, b in zip(ticks, ticks[1:])]
        assert all(gap >= axes.MIN_TICK_GAP for gap in gaps), (lo, hi, ticks)


def test_the_ratio_chart_is_drawn_with_non_colliding_labels():
    html = report_html.render([report_html.Section(result_with({"a": 0.5, "b": 0.8, "c": 0.9, "d": 1.0}))], "t")
    chart = re.search(r"<svg class='chart'[^>]*aria-label='speedups per case.*?</svg>", html, re.S).group(0)
    xs = sorted(float(x) for x in re.findall(r"<text x='([0-9.]+)' y='\d+' class='tick'>", chart))
    assert len(xs) >= 2 and all(b - a >= axes.MIN_TICK_GAP for a, b in zip(xs, xs[1:]))


def test_the_distribution_axis_starts_where_the_data_does():
    result = result_with({"fast": 0.3}, level=2e-3)
    html = report_html.render([report_html.Section(result)], "t")
    chart = re.search(r"aria-label='distribution of CTR'.*?</svg>", html, re.S).group(0)
    ticks = re.findall(r"class='tick'>([^<]+)</text>", chart)
    assert not any(t.startswith("-") for t in ticks)
    medians = [float(np.median(v)) for c in result.cells for v in c.process_values()]
    assert ticks[0] == format_time(min(medians), max(medians)) and ticks[-1] == format_time(max(medians), max(medians))


def test_the_demo_summary_says_who_is_faster_and_what_is_not_equivalent():
    sections = [
        report_html.Section(result_with({"cryptography": 1 / 4500, EVIL: 0.5}, not_equivalent=EVIL)),
        report_html.Section(result_with({"orjson": 1.4}, benchmark="json_dumps")),
    ]
    html = report_html.render(sections, "perflab demo")
    summary = re.search(r"<section class='summary'>.*?</section>", html, re.S).group(0)
    assert html.index("<section class='summary'>") < html.index("<section class='benchmark'")
    assert "<strong>cryptography</strong> is fastest: 4,500x faster [4,369x, 4,639x] than pyaes" in summary
    assert "invalid: &lt;img src=x onerror=window.pwned=1&gt;</span>" in summary and EVIL not in html
    assert "every contender is slower than pyaes; the closest, <strong>orjson</strong>: 1.40x slower" in summary
