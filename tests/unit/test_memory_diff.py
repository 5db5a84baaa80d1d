"""Differential memory profiles (perflab.profile.diff of allocation profiles): bytes per call, not
raw totals, whatever the calls each run made; the peak as it is; intervals across processes; the
sentence, the flame graph's data and the JSON in the diff's unit."""

from collections import Counter

import pytest

from perflab.profile.diff import CONTENDER, diff_profiles
from perflab.profile.model import IncomparableProfiles, Profile
from perflab.render.html import report as report_html
from perflab.units import format_bytes

PY = {"implementation": "CPython", "version": "3.11.7", "executable": "/usr/bin/python3"}
ENCODE = "encode (<project>/lib.py:10)"
BUFFER = "buffer (<project>/lib.py:20)"
ENCODE_KEY, BUFFER_KEY = "encode (<project>/lib.py)", "buffer (<project>/lib.py)"


def memory_profile(runs, loops, view="allocated", contender="c"):
    """An allocation profile from [{stack: bytes over the run's calls}] runs, each with its calls."""
    return Profile(
        [Counter(run) for run in runs],
        {
            "sampler": "memray",
            "mode": view,
            "native": False,
            "python": PY,
            "contender": contender,
            "benchmark_file": "/x/bench.py",
            "run_info": [{"loops": n, view: sum(run.values())} for run, n in zip(runs, loops)],
        },
    )


def test_bytes_per_call_not_raw_totals():
    # B made 10x the calls of A with the same allocations per call: no difference.
    a = memory_profile([{(ENCODE,): 1000 * 100, (ENCODE, BUFFER): 4000 * 100}] * 3, [100] * 3)
    b = memory_profile([{(ENCODE,): 1000 * 1000, (ENCODE, BUFFER): 4000 * 1000}] * 3, [1000] * 3)
    diff = diff_profiles(a, b)
    assert diff.nodes[(ENCODE_KEY, BUFFER_KEY)].a == pytest.approx(4000)
    assert diff.operation.difference.value == pytest.approx(0)
    assert diff.unit == "bytes" and diff.measure == "bytes allocated per call"
    assert "no detectable difference" in diff.explain() and "KiB" in diff.explain()


def test_an_extra_buffer_is_named_with_its_interval_across_processes():
    runs_a = [{(ENCODE,): 1000 * 100 + k, (ENCODE, BUFFER): 4000 * 100} for k in (0, 50, 100)]
    runs_b = [{(ENCODE,): 1000 * 200 + k, (ENCODE, BUFFER): 8192 * 200 + k} for k in (0, 100, 200)]
    diff = diff_profiles(memory_profile(runs_a, [100] * 3), memory_profile(runs_b, [200] * 3), ("old", "new"))
    buffer = diff.nodes[(ENCODE_KEY, BUFFER_KEY)].difference
    assert buffer.low < 4192 < buffer.high and buffer.value == pytest.approx(4192.5)
    assert diff.largest_self_changes(1)[0].path == (ENCODE_KEY, BUFFER_KEY)
    assert diff.explain().startswith(
        "new vs old: bytes allocated per call 4.88 KiB -> 8.98 KiB (+4.09 KiB, 95% CI +4.09 KiB to +4.1 KiB)"
    )
    assert "100% of the 4.09 KiB added is in encode -> buffer" in diff.explain()
    assert "3 and 3 runs, unpaired (Welch) intervals" in diff.notes


def test_the_peak_is_not_divided_by_the_calls_a_side_without_allocations_counts_and_views_do_not_mix():
    a = memory_profile([{(ENCODE,): 5000}] * 2, [100, 300], view="peak")
    b = memory_profile([{}] * 2, [100, 300], view="peak")
    diff = diff_profiles(a, b)
    assert diff.measure == "bytes live at the peak"
    assert diff.operation.a == 5000 and diff.operation.b == 0 and diff.operation.difference.value == -5000
    with pytest.raises(IncomparableProfiles, match="sampling mode"):  # views do not mix
        diff_profiles(a, memory_profile([{}], [1], view="allocated"))


def test_allocation_counts_and_held_memory_read_in_their_own_words():
    counts = diff_profiles(
        memory_profile([{(ENCODE,): 200}] * 2, [100] * 2, view="allocations"),
        memory_profile([{(ENCODE,): 300}] * 2, [100] * 2, view="allocations"),
    )
    assert counts.unit == "allocations" and counts.signed(counts.operation.difference.value) == "+1"
    held = diff_profiles(
        memory_profile([{(ENCODE,): 0}] * 2, [10] * 2, view="held"),
        memory_profile([{(ENCODE,): 160}] * 2, [10] * 2, view="held"),
    )
    assert held.measure == "bytes still held after the calls, per call" and held.operation.b == 16


def test_contenders_of_one_file_line_up_and_the_flame_graph_and_json_are_in_bytes():
    a = memory_profile([{("a (/x/bench.py:3)", ENCODE): 100 * 10}] * 2, [10] * 2, contender="a")
    b = memory_profile(
        [{("b (/x/bench.py:7)", ENCODE): 100 * 10, ("b (/x/bench.py:7)", BUFFER): 2048 * 10}] * 2,
        [10] * 2,
        contender="b",
    )
    diff = diff_profiles(a, b, ("a", "b"))
    assert (CONTENDER, BUFFER_KEY) in diff.nodes
    flame = report_html.diff_flame(diff)
    assert "+2 KiB" in flame and "bytes allocated per call" in flame and "red: more" in flame
    assert "Largest changes in self memory per call" in report_html.diff_table(diff)
    saved = diff.to_json()
    assert saved["unit"] == "bytes" and saved["sides"] == ["a", "b"]
    node = next(n for n in saved["nodes"] if n["path"] == [CONTENDER, "buffer"])
    assert node["b"] == 2048 and node["difference"] == {"value": 2048, "low": 2048, "high": 2048}


def test_a_thousand_bytes_read_as_bytes():
    assert format_bytes(1000) == "1,000 B" and format_bytes(1023.4) == "1,023 B" and format_bytes(999) == "999 B"
