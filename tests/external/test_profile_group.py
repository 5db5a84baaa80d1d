"""Profiling the sides of a comparison together (perflab.profile.pairing.profile_group): real
workers and real py-spy; and the pieces that made it faster (samples of no frame, jobs side by side)."""

import sys

from perflab.measure.sides import contender_sides
from perflab.profile.pairing import profile_group
from perflab.profile.settings import (
    ProfileSettings,
)

BENCH = """
    import perflab

    bench = perflab.Benchmark("three", description="three contenders, one broken")

    @bench.case
    def N():
        return 2000

    @bench.contender
    def squares(n):
        return sum(i * i for i in range(n))

    @bench.contender
    def closed_form(n):
        return (n - 1) * n * (2 * n - 1) // 6

    @bench.contender
    def broken(n):
        raise RuntimeError("this contender always fails")
"""


def test_each_side_is_profiled_in_every_round_and_a_failing_side_stops_only_itself(bench_file):
    path = str(bench_file(BENCH))
    sides = contender_sides(path, ["squares", "broken", "closed_form"], sys.executable)
    outcomes = profile_group(sides, "N", ProfileSettings(samples=90, min_runs=3, adaptive_rounds=False, timeout=30))
    assert set(outcomes) == {"squares", "broken", "closed_form"}
    for name in ("squares", "closed_form"):
        profile = outcomes[name].profile
        assert outcomes[name].error is None
        rounds = [info["round"] for info in profile.metadata["run_info"]]
        # One run a round: a run a few samples short of the round's share is not followed by another.
        assert rounds == [0, 1, 2]
        assert profile.samples > 0 and profile.metadata["sample_budget"] == 90
        assert all(info["seconds"] > 0 for info in profile.metadata["run_info"])
    broken = outcomes["broken"]
    assert "this contender always fails" in broken.error and not broken.profile.runs
