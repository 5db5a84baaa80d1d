"""Profiles kept with stored runs: those `perflab compare --profile` takes, and those that travel
through `perflab export` / `perflab import`."""

from __future__ import annotations

from support.store_results import synthetic_result

from perflab.results.profiles import side_runs


def test_sides_of_a_comparison_of_revisions_map_to_their_own_runs():
    result = synthetic_result(commit="a" * 40)
    result.metadata["sides"] = {"main": {}, "HEAD": {}}
    result.sides = {"main": {"contender": "base"}, "HEAD": {"contender": "base"}}
    assert side_runs(result, [11, 12]) == {"main": (11, "base"), "HEAD": (12, "base")}
    plain = synthetic_result(commit="a" * 40)
    assert side_runs(plain, [5]) == {"base": (5, "base")}
