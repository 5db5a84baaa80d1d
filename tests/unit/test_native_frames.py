"""One C function, one frame, whichever sampler took the profile: real profiles of json_dumps NESTED
(json_stdlib, CPython 3.13.0 by pyenv) by perf (``--sampler perf``: ``f (_json.cpython-313-...so)``,
the library) and by py-spy --native (``f (_json.c)``, the source file), merged and diffed."""

from pathlib import Path

import pytest

from perflab.profile.diff import diff_profiles
from perflab.profile.frames import parse_frame
from perflab.profile.model import IncomparableProfiles, Profile, merge_profiles
from perflab.profile.processors import align_native_frames
from perflab.profile.shares import frame_shares

PROFILES = Path(__file__).resolve().parent.parent / "data" / "native_profiles"
PERF = Profile.load(PROFILES / "json_dumps-NESTED-perf.profile.json")
PY_SPY = Profile.load(PROFILES / "json_dumps-NESTED-py-spy.profile.json")
HOT = "py_encode_basestring_ascii"


def frames_named(profile: Profile, name: str) -> set[str]:
    return {label for run in profile.runs for stack in run for label in stack if parse_frame(label).name == name}


def test_the_samplers_name_c_frames_differently():
    assert frames_named(PERF, HOT) == {f"{HOT} (_json.cpython-313-x86_64-linux-gnu.so)"}
    assert frames_named(PY_SPY, HOT) == {f"{HOT} (_json.c)"}


def test_merged_the_hot_c_function_is_one_frame_and_python_frames_line_up():
    merged = merge_profiles([("perf", PERF), ("py-spy", PY_SPY)])
    assert frames_named(merged, HOT) == {f"{HOT} (_json.cpython-313-x86_64-linux-gnu.so)"}  # the first's label
    assert merged.samples == PERF.samples + PY_SPY.samples
    shares = {share.frame: share for share in frame_shares(merged.runs)}
    alone = {share.frame: share for share in frame_shares(PERF.runs + PY_SPY.runs)}
    python = "JSONEncoder.iterencode (<stdlib>/json/encoder.py:205)"
    assert shares[python].total.value == alone[python].total.value  # Python frames were alike already
    hot = shares[f"{HOT} (_json.cpython-313-x86_64-linux-gnu.so)"].total.value
    split = [share.total.value for label, share in alone.items() if parse_frame(label).name == HOT]
    assert len(split) == 2 and hot == pytest.approx(sum(split), abs=1e-9)  # one frame: both samplers' samples
    assert (
        merged.metadata["sampler_version"]
        == "perf version 6.1.187 --call-graph dwarf,65528, -X perf_jit + py-spy 0.4.3"
    )


def test_diffed_the_hot_c_function_is_one_node():
    diff = diff_profiles(PY_SPY, PERF, ("py-spy", "perf"))  # no --allow-mismatch needed
    hot = [path for path in diff.nodes if path and parse_frame(path[-1]).name == HOT]
    assert hot and all(diff.nodes[path].a > 0 and diff.nodes[path].b > 0 for path in hot[:1])
    assert {parse_frame(path[-1]).file for path in hot} == {"_json.c"}  # the first side's label
    assert any(note.startswith("sampled by py-spy and perf: their C frames lined up") for note in diff.notes)


def test_alignment_keeps_unresolved_and_python_frames_and_folds_clones():
    runs = [
        [{("f (<project>/a.py:3)", "encoder_listencode_obj.isra.0 (_json.so)", "[unknown] (libc.so.6)"): 2}],
        [{("f (<project>/a.py:3)", "encoder_listencode_obj (_json.c)", "[unknown] (libc.so.6)"): 1}],
    ]
    (first,), (second,) = align_native_frames(runs)
    assert (
        list(first)
        == list(second)
        == [("f (<project>/a.py:3)", "encoder_listencode_obj (_json.so)", "[unknown] (libc.so.6)")]
    )


def test_other_samplers_still_do_not_mix():
    inprocess = Profile(PY_SPY.runs, {**PY_SPY.metadata, "sampler": "inprocess"})
    with pytest.raises(IncomparableProfiles, match="sampler"):
        merge_profiles([("perf", PERF), ("inprocess", inprocess)])
    python_only = Profile(PY_SPY.runs, {**PY_SPY.metadata, "native": False})
    with pytest.raises(IncomparableProfiles, match="cannot be merged"):
        merge_profiles([("perf", PERF), ("py-spy", python_only)])
