"""The report's memory-vs-size chart (perflab.render.html.memory_sizes): a streaming contender's flat
line against a whole-document one's rising with the declared case sizes, on log scales, with each
point's range over processes; no chart without two sizes of one unit."""

import pytest
from support.metrics_results_shared import _result

from perflab.metrics import Measured, memory
from perflab.render.html import memory_sizes
from perflab.render.html import report as report_html
from perflab.results.model import Cell

SIZES = {"SMALL": 1_000, "MEDIUM": 10_000, "LARGE": 100_000}  # bytes of the document each case parses


def _use(case, contender, allocated, peak):
    return memory.MemoryUse(
        case,
        contender,
        50,
        allocated_per_call=[allocated, allocated + 8, allocated + 16],
        peak_allocated=[peak] * 3,
        allocation_loops=100,
    )


def _parsers(work=None):
    uses = [
        use
        for case, size in SIZES.items()
        for use in (_use(case, "streaming", 4_096, 2_048), _use(case, "whole", 3 * size, 2 * size))
    ]
    return _result(
        cells=[Cell(case, name) for case in SIZES for name in ("streaming", "whole")],
        reference="streaming",
        work=work if work is not None else {case: ["B", size] for case, size in SIZES.items()},
        metrics=Measured(memory=uses).to_json(),
    )


def test_streaming_memory_is_flat_and_whole_document_memory_rises_with_the_size():
    chart = memory_sizes.chart(_parsers())
    allocated, peak = chart["panels"]
    assert (allocated["title"], peak["title"]) == ("bytes allocated per call", "bytes live at the calls' peak")
    for panel in (allocated, peak):
        lines = {line["name"]: line["points"] for line in panel["lines"]}
        assert [p["x"] for p in lines["whole"]] == sorted(p["x"] for p in lines["whole"])  # by size
        assert len({round(p["y"], 6) for p in lines["streaming"]}) == 1  # flat
        whole = [p["y"] for p in lines["whole"]]
        assert whole[0] > whole[1] > whole[2]  # rising (SVG y grows downwards)
        # log-log: 10x the size is the same rise each time (proportional)
        assert whole[0] - whole[1] == pytest.approx(whole[1] - whole[2], rel=0.01)
    low, high = allocated["lines"][0]["points"][0]["low"], allocated["lines"][0]["points"][0]["high"]
    assert low > high  # the whisker spans the processes' range (4,096 to 4,112 B)
    assert [label for _, label in allocated["x_ticks"]] == ["1,000 B", "9.77 KiB", "97.7 KiB"]
    whole_large = next(line for line in allocated["lines"] if line["name"] == "whole")["points"][-1]["title"]
    assert whole_large == "whole / LARGE (97.7 KiB): 293 KiB [293 KiB, 293 KiB] bytes allocated per call"


def test_no_chart_without_two_sizes_of_one_unit_and_the_report_draws_it_when_there_are():
    assert memory_sizes.chart(_parsers(work={"SMALL": ["B", 1000]})) is None
    mixed = {"SMALL": ["B", 1000], "MEDIUM": ["items", 10], "LARGE": ["B", 1000]}
    assert memory_sizes.chart(_parsers(work=mixed)) is None
    assert memory_sizes.chart(_result(work={case: ["B", size] for case, size in SIZES.items()})) is None
    page = report_html.render([report_html.Section(_parsers())], "parsers")
    assert "Memory against case size" in page and page.count("<svg class='chart memory-sizes'") == 2
    assert "<title>whole / LARGE (97.7 KiB): 293 KiB [293 KiB, 293 KiB] bytes allocated per call</title>" in page
