"""Profiles by line (``perflab profile --lines``): the in-process sampler labels the line running,
and a profile by line is never merged or compared with one by function."""

import time
from collections import Counter

import pytest

from perflab.bench.worker.inprocess_sampler import InProcessSampler
from perflab.profile.diff import check_comparable
from perflab.profile.frames import parse_frame
from perflab.profile.model import IncomparableProfiles, Profile, describe_sampling, merge_profiles


def spin(seconds):
    end = time.process_time() + seconds
    total = 0
    while time.process_time() < end:
        total += 1
    return total


FIRST_LINE = spin.__code__.co_firstlineno


def _lines_of_spin(lines: bool) -> set[int]:
    sampler = InProcessSampler(1000, "cpu", lines=lines)
    sampler.start()
    try:
        spin(0.3)
    finally:
        stacks = sampler.stop()
    found = {parse_frame(label) for frames, _ in stacks for label in frames}
    return {frame.line for frame in found if frame.name == "spin"}


def test_the_in_process_sampler_labels_the_line_running_with_lines():
    by_line = _lines_of_spin(lines=True)
    assert by_line and by_line <= {FIRST_LINE + 1, FIRST_LINE + 2, FIRST_LINE + 3, FIRST_LINE + 4}
    assert _lines_of_spin(lines=False) == {FIRST_LINE}  # py-spy's --function labels: the function's first line


def test_profiles_by_line_and_by_function_are_not_merged_or_diffed():
    by_line = Profile([Counter({("spin (a.py:3)",): 2})], {"sampler": "py-spy", "lines": True, "rate": 200})
    by_function = Profile([Counter({("spin (a.py:1)",): 2})], {"sampler": "py-spy", "lines": False})
    assert describe_sampling(by_line.metadata).endswith("Python frames by line")
    with pytest.raises(IncomparableProfiles, match="lines"):
        merge_profiles([("by line", by_line), ("by function", by_function)])
    with pytest.raises(IncomparableProfiles, match="frames by line"):
        check_comparable(by_line, by_function)
    saved_before = Profile(by_function.runs, {"sampler": "py-spy"})  # no "lines": by function
    check_comparable(saved_before, by_function)
