"""--metric cache's per-function counts in a profile of the same cell: callgrind's names matched to
the profile's C frames (real names, from a real dump and real profiles), and the flame graph's
tooltip line for each frame."""

import pytest
from support.metrics_results_shared import _result

from perflab import metrics
from perflab.metrics.cache import CacheReading
from perflab.profile import simulated_cache
from perflab.profile.frames import native_function
from perflab.profile.model import Profile
from perflab.render.cache_tables import frame_note
from perflab.render.html.flamegraph import page_data

# Entries of a real callgrind dump (json_dumps NESTED, json_stdlib, CPython 3.11.7 by pyenv, valgrind
# 3.19 --cache-sim=yes --branch-sim=yes): own counts of the N-call region minus the 0-call region's,
# for 200 calls. Callgrind names the symbol (a GCC clone), and a recursive activation with 'N.
OWN = {"Ir": 106400, "I1mr": 3404, "D1mr": 204, "D1mw": 0, "ILmr": 0, "DLmr": 0, "DLmw": 0, "Bcm": 606, "Bim": 3400}
RECURSIVE = {
    "Ir": 444400,
    "I1mr": 2000,
    "D1mr": 1,
    "D1mw": 0,
    "ILmr": 0,
    "DLmr": 0,
    "DLmw": 0,
    "Bcm": 5605,
    "Bim": 8400,
}
ESCAPE = {"Ir": 1398800, "I1mr": 2802, "D1mr": 5, "D1mw": 0, "ILmr": 0, "DLmr": 0, "DLmw": 0, "Bcm": 13405, "Bim": 400}
CALLS = 200
DUMP = {
    "encoder_listencode_obj.isra.0": OWN,
    "encoder_listencode_obj.isra.0'2": RECURSIVE,
    "py_encode_basestring_ascii": ESCAPE,
    "0x0000000004936718": {"Ir": 12},  # an address valgrind found no symbol for
}
PER_CALL = {name: {event: count / CALLS for event, count in events.items()} for name, events in DUMP.items()}

# Frames of a real py-spy --native profile of the same cell: C functions by their source file (or
# their library where py-spy found no line), functions inlined into others as frames of their own.
PY_SPY = [
    "JSONEncoder.iterencode (<stdlib>/json/encoder.py:205)",
    "encoder_call (_json.c)",
    "encoder_listencode_obj (_json.c)",
    "encoder_listencode_dict (_json.c)",
    "py_encode_basestring_ascii (_json.c)",
    "ascii_escape_unicode (_json.c)",
    "Py_DECREF (object.h)",
    "unicode_dealloc (libpython3.11.so.1.0)",
    "realloc (libc.so.6)",
    "[unknown] (libc.so.6)",
]


@pytest.mark.parametrize(
    ("name", "function"),
    [
        ("encoder_listencode_obj.isra.0'2", "encoder_listencode_obj"),  # callgrind: clone, recursion
        ("_PyEval_EvalFrameDefault'2", "_PyEval_EvalFrameDefault"),
        ("__libc_start_main@@GLIBC_2.34", "__libc_start_main"),  # a versioned symbol
        ("unlink_chunk.constprop.0", "unlink_chunk"),
        ("analyze_descriptor.part.0", "analyze_descriptor"),
        ("__memcpy_avx_unaligned_erms", "__memcpy_avx_unaligned_erms"),
        ("encoder_listencode_obj", "encoder_listencode_obj"),  # py-spy: the name in the source
        ("_PyThreadState_GetCurrent@plt", "_PyThreadState_GetCurrent@plt"),  # perf: a PLT stub, not the function
        ("0x000000000001ab70", None),  # callgrind: no symbol
        ("[unknown]", None),  # a sampler: no symbol
    ],
)
def test_tools_names_of_one_c_function_agree(name, function):
    assert native_function(name) == function


def test_callgrind_entries_of_one_function_add_up():
    counted = simulated_cache.by_function(PER_CALL)
    assert set(counted) == {"encoder_listencode_obj", "py_encode_basestring_ascii"}
    assert counted["encoder_listencode_obj"]["Ir"] == pytest.approx((106400 + 444400) / CALLS)
    assert counted["encoder_listencode_obj"]["Bcm"] == pytest.approx((606 + 5605) / CALLS)


def test_only_the_frames_of_counted_c_functions_get_counts():
    metadata: dict = {}
    simulated_cache.keep(metadata, PER_CALL)
    found = {label: simulated_cache.of_frame(metadata, label) for label in PY_SPY}
    assert found.pop("encoder_listencode_obj (_json.c)")["D1mr"] == pytest.approx((204 + 1) / CALLS)
    assert found.pop("py_encode_basestring_ascii (_json.c)")["Ir"] == pytest.approx(1398800 / CALLS)
    # a Python frame, functions callgrind counts inside their callers (inlined), unresolved ones, and
    # functions this dump's excerpt does not have: nothing, never another function's counts
    assert set(found.values()) == {None}
    assert simulated_cache.of_frame({}, "py_encode_basestring_ascii (_json.c)") is None


def test_the_flame_graph_tooltip_line_of_a_counted_frame():
    stack = tuple(PY_SPY[:5])
    profile = Profile([{stack: 3, stack[:3]: 1}] * 2, {"sampler": "py-spy", "native": True})
    simulated_cache.keep(profile.metadata, PER_CALL)
    data = page_data(profile, "t", [])
    notes = dict(zip(data["frames"]["name"], data["frames"]["cache"]))
    assert notes["py_encode_basestring_ascii"] == (
        "simulated per call (cachegrind, --metric cache): 0.025 L1 data misses, 0 LL misses, "
        "69 branch mispredictions, in 6,994 instructions of its own"
    )
    assert notes["encoder_listencode_obj"] == frame_note(simulated_cache.of_frame(profile.metadata, stack[2]))
    assert notes["JSONEncoder.iterencode"] is None and notes["encoder_call"] is None
    assert data["frames"]["cache"][0] is None  # the root


def test_a_run_keeps_its_cells_counts_in_the_cells_profile():
    reading = CacheReading("DOC", "a", CALLS, [PER_CALL["py_encode_basestring_ascii"]], PER_CALL)
    result = _result(metrics=metrics.Measured(cache=[reading]).to_json())
    mine, other, memory = Profile(), Profile(), Profile(metadata={"sampler": "memray"})
    metrics.annotate_profile(mine, result, "DOC", "a")
    metrics.annotate_profile(other, result, "DOC", "b")
    metrics.annotate_profile(memory, result, "DOC", "a")
    assert set(mine.metadata[simulated_cache.KEY]) == {"encoder_listencode_obj", "py_encode_basestring_ascii"}
    assert simulated_cache.KEY not in other.metadata  # another cell's counts are not this one's
    assert simulated_cache.KEY not in memory.metadata  # an allocation profile's frames are not time


def test_the_webs_stored_profile_page_carries_the_tooltip_lines_escaped(tmp_path):
    pytest.importorskip("jinja2", reason="the web view needs perflab[web]")
    import json
    import re

    from support.store_results import synthetic_result

    from perflab.results.store import Store
    from perflab.web import pages
    from perflab.web.site import Links, cell_id

    hostile = "<img src=x onerror=alert(1)>"
    stack = ("op (<project>/bench.py:1)", f"{hostile} (lib.so)", "py_encode_basestring_ascii (_json.c)")
    profile = Profile([{stack: 3}, {stack: 2}], {"sampler": "py-spy", "native": True})
    simulated_cache.keep(profile.metadata, {**PER_CALL, hostile: {"Ir": 5.0, "D1mr": 1.0}})
    with Store.open(tmp_path / "perflab.db") as store:
        run_id = store.save(synthetic_result())
        store.save_profile(run_id, "SMALL", "base", profile)
        page = pages.profile(Links(static_site=True, depth=1), store, run_id, cell_id("SMALL", "base"))
    assert page is not None and hostile not in page  # in the page's JSON with <, > escaped
    data = json.loads(re.search(r'id="profile-data">(.*?)</script>', page, re.DOTALL).group(1))
    notes = dict(zip(data["frames"]["name"], data["frames"]["cache"]))
    assert notes[hostile].startswith("simulated per call (cachegrind, --metric cache): 1 L1 data misses")
    assert notes["py_encode_basestring_ascii"].endswith("in 6,994 instructions of its own")
