"""Allocation profiles in-process: figures per call with intervals across runs, and every view of a
profile (terminal, speedscope, flame graph) naming memory, not time samples."""

import json
import math
import sys
from collections import Counter

import pytest
from rich.console import Console

from perflab.bench.worker import allocations as worker_allocations
from perflab.bench.worker.allocations import ToolMissing
from perflab.profile.allocations import frame_objects_note, per_call
from perflab.profile.model import Profile, describe_sampling, weight_unit
from perflab.profile.side_profiles import CaseProfiles, outcome_lines
from perflab.render import speedscope
from perflab.render.html import flamegraph
from perflab.render.terminal import profile as profile_terminal

STACK = ("block (<project>/bench.py:12)", "make_block (<project>/bench.py:9)")


def _memory_profile(view="allocated", infos=None):
    infos = infos or [
        {"loops": 100, "allocated": 1_000_000, "allocations": 300, "peak": 5_000, "held": 0},
        {"loops": 100, "allocated": 1_000_200, "allocations": 300, "peak": 5_400, "held": 100},
        {"loops": 100, "allocated": 999_800, "allocations": 300, "peak": 4_600, "held": 200},
    ]
    runs = [Counter({STACK: info[view], (): 8}) for info in infos]
    metadata = {
        "benchmark": "b",
        "case": "N",
        "contender": "block",
        "sampler": "memray",
        "sampler_version": "memray 1.19.1",
        "mode": view,
        "native": False,
        "run_info": infos,
    }
    return Profile(runs, metadata)


def test_per_call_divides_by_the_calls_except_the_peak_and_intervals_span_the_runs():
    figures = per_call(_memory_profile())
    assert math.isclose(figures["allocated"].value, 10_000)
    assert figures["allocated"].low < 10_000 < figures["allocated"].high
    assert math.isclose(figures["allocations"].value, 3) and figures["allocations"].low == 3  # no spread
    assert math.isclose(figures["peak"].value, 5_000)  # a moment's memory, not divided by the calls
    assert math.isclose(figures["held"].value, 1) and figures["held"].low < 0.5


def test_a_single_run_has_no_interval():
    profile = _memory_profile(infos=[{"loops": 10, "allocated": 100, "allocations": 1, "peak": 1, "held": 0}])
    assert per_call(profile)["allocated"].value == 10 and math.isinf(per_call(profile)["allocated"].high)
    console = Console(record=True, width=200)
    profile_terminal.render(profile, console)
    assert "bytes allocated per call: 10 B [no interval: one run]" in console.export_text()


def test_allocation_profiles_name_their_unit_and_view():
    assert weight_unit(_memory_profile().metadata) == "bytes"
    assert weight_unit(_memory_profile("allocations").metadata) == "allocations"
    assert weight_unit({"sampler": "py-spy"}) == "samples"
    assert describe_sampling(_memory_profile("held").metadata) == (
        "memray 1.19.1, bytes still held after the calls, Python frames"
    )


def test_terminal_view_shows_figures_per_call_and_memory_shares():
    console = Console(record=True, width=200)
    profile_terminal.render(_memory_profile(), console)
    text = console.export_text()
    assert "3 runs (fresh processes) of 100 calls each" in text
    assert "bytes allocated per call: 9.77 KiB [95% CI" in text
    assert "allocations per call: 3 [95% CI 3, 3]" in text
    assert "bytes live at the peak (the most held at once during the calls): 4.88 KiB" in text
    assert "bytes still held after the calls, per call: 1 B [95% CI" in text
    assert "by self share (bytes allocated in the function itself)" in text
    assert "samples" not in text and "time" not in text


def test_thousands_of_allocations_per_call_are_written_out():
    """'allocations per call: 8.17e+03' was the terminal's own formatting of a count."""
    infos = [{"loops": 100, "allocated": 1, "allocations": 817_000, "peak": 1, "held": 0}] * 2
    console = Console(record=True, width=200)
    profile_terminal.render(_memory_profile(infos=infos), console)
    assert "allocations per call: 8,170 [95% CI 8,170, 8,170]" in console.export_text()


def test_speedscope_and_flame_graph_weigh_in_bytes():
    document = json.loads(speedscope.render(_memory_profile()))
    assert document["profiles"][0]["unit"] == "bytes"
    data = flamegraph.page_data(_memory_profile(), "t", [])
    assert data["unit"] == "bytes"
    assert data["meta"][0].startswith("3,000,024 bytes of the operation in 3 runs")


def test_the_note_on_frame_objects_says_per_call_and_whether_they_were_subtracted():
    infos = [
        {"loops": 100, "frame_objects": {"bytes": 16_800, "count": 100, "not_subtracted": None}},
        {"loops": 100, "frame_objects": {"bytes": 16_800, "count": 100, "not_subtracted": None}},
    ]
    (note,) = frame_objects_note(_memory_profile(infos=[{**info, **FIGURES} for info in infos]))
    assert note.startswith("memray's profile hook made CPython create 1 frame objects per call (168 B)")
    assert note.endswith("subtracted from bytes allocated and allocations (not from the peak)")
    infos[1]["frame_objects"]["not_subtracted"] = "g is a generator or coroutine"
    (note,) = frame_objects_note(_memory_profile(infos=[{**info, **FIGURES} for info in infos]))
    assert note.endswith("counted at the calling function, not subtracted (g is a generator or coroutine)")
    no_frames = {"loops": 100, "frame_objects": {"bytes": 0, "count": 0, "not_subtracted": None}, **FIGURES}
    assert frame_objects_note(_memory_profile(infos=[no_frames])) == []


FIGURES = {"allocated": 1000, "allocations": 10, "peak": 100, "held": 0}


def test_a_side_that_could_not_be_profiled_is_said_in_the_terminal():
    """compare --python A --python B --profile-memory with no memray under B: the terminal said
    nothing (the reason was in the HTML report only)."""
    failed = CaseProfiles("SMALL", "3.11", "3.12", _memory_profile(), Profile())
    failed.notes.append("3.12: memray is not installed for /usr/bin/python3.12 (No module named 'memray')")
    assert outcome_lines([failed]) == [
        "  SMALL: 3.12: memray is not installed for /usr/bin/python3.12 (No module named 'memray')"
    ]


def test_memray_missing_under_a_compared_interpreter_says_how_to_install_it_there(monkeypatch):
    monkeypatch.setitem(sys.modules, "memray", None)  # what importlib reports for a package not installed
    with pytest.raises(ToolMissing) as error:
        worker_allocations._memray()
    assert str(error.value).endswith(f"{sys.executable} -m pip install memray")
