"""Stack processing: folded stacks, trimming to the operation, path normalization, saved profiles, merging."""

from collections import Counter

import pytest

from perflab.profile.model import IncomparableProfiles, Profile, merge_profiles
from perflab.profile.processors import normalize_frame, normalize_stacks, path_roots

ROOTS = path_roots(
    "/home/me/project", {"stdlib": "/usr/lib/python3.11", "purelib": "/usr/lib/python3.11/site-packages"}
)


@pytest.mark.parametrize(
    "label, expected",
    [
        ("dumps (/usr/lib/python3.11/json/__init__.py:183)", "dumps (<stdlib>/json/__init__.py:183)"),
        ("f (/usr/lib/python3.11/site-packages/pkg/m.py:5)", "f (<site-packages>/pkg/m.py:5)"),
        ("f (/home/me/project/.venv/lib/python3.12/site-packages/pkg/m.py:5)", "f (<site-packages>/pkg/m.py:5)"),
        ("op (/home/me/project/bench/b.py:3)", "op (<project>/bench/b.py:3)"),
        ("op (/elsewhere/b.py:3)", "op (/elsewhere/b.py:3)"),
        ("encoder_call (/tmp/python-build.123/Python-3.11.7/Modules/_json.c:1305)", "encoder_call (_json.c)"),
        ("0x7f068ea4524a (/usr/lib/x86_64-linux-gnu/libc.so.6)", "[unknown] (libc.so.6)"),
        ("<module> (<frozen importlib._bootstrap>:1)", "<module> (<frozen importlib._bootstrap>:1)"),
    ],
)
def test_paths_are_normalized_so_profiles_from_two_machines_line_up(label, expected):
    assert normalize_frame(label, ROOTS) == expected


def test_normalizing_merges_frames_that_differ_only_in_build_paths_or_call_lines():
    stacks = Counter({("encoder_call (/a/Modules/_json.c:1305)",): 2, ("encoder_call (/b/Modules/_json.c:1309)",): 3})
    assert normalize_stacks(stacks, ROOTS) == Counter({("encoder_call (_json.c)",): 5})


def test_profile_json_round_trip(tmp_path):
    profile = Profile([Counter({("a", "b"): 3, (): 1}), Counter({("a",): 4})], {"sampler": "py-spy", "rate": 100})
    profile.save(tmp_path / "p.json")
    loaded = Profile.load(tmp_path / "p.json")
    assert loaded.runs == profile.runs and loaded.metadata == profile.metadata


def test_merge_keeps_runs_apart_and_refuses_different_samplers():
    a = Profile([Counter({("x",): 3})], {"sampler": "py-spy", "native": True})
    b = Profile([Counter({("x",): 2}), Counter({("y",): 1})], {"sampler": "py-spy", "native": True})
    merged = merge_profiles([("a", a), ("b", b)])
    assert len(merged.runs) == 3 and merged.samples == 6
    c = Profile([Counter({("x",): 1})], {"sampler": "py-spy", "native": False})
    with pytest.raises(IncomparableProfiles, match="c: native is False but a has True"):
        merge_profiles([("a", a), ("c", c)])
