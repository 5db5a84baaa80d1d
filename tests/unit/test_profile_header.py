"""The terminal profile's header: counts read as English at one as at many."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from perflab.profile.model import Profile
from perflab.render.terminal.profile import render

PROFILE = Path(__file__).parent.parent / "data" / "native_profiles" / "json_dumps-NESTED-perf.profile.json"


@pytest.mark.parametrize(("outside", "words"), [(1, "1 sample outside"), (3, "3 samples outside")])
def test_samples_dropped_outside_the_operation_are_counted_in_the_right_number(outside, words):
    profile = Profile.load(PROFILE)
    for info in profile.metadata["run_info"]:
        info["outside_operation"] = 0
    profile.metadata["run_info"][0]["outside_operation"] = outside
    console = Console(file=io.StringIO(), width=200)
    render(profile, console)
    header = console.file.getvalue()
    assert f"{words} the operation dropped" in header
