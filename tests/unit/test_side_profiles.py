"""compare's profiles of its sides (perflab.profile.side_profiles), with the profiling itself replaced."""

from dataclasses import replace

from support.store_results import synthetic_result

from perflab.measure.sides import Side
from perflab.profile import side_profiles
from perflab.profile.model import Profile
from perflab.profile.session import ProfileOutcome
from perflab.profile.settings import ProfileSettings


def test_a_sides_profiling_note_names_the_side(monkeypatch):
    """compare's profiles: the two sides' notes can differ (one side's stacks needed a larger perf stack
    dump), so each says which side it is about, as their errors do."""
    result = synthetic_result(cases=("SMALL",))
    for name in ("a", "b"):
        result.cells.append(replace(result.cell("SMALL", "base"), contender=name))
    deeper = ProfileOutcome(Profile(), notes=["3 samples had stacks deeper than perf's stack dump"])
    monkeypatch.setattr(
        side_profiles, "profile_group", lambda sides, *rest: {"a": ProfileOutcome(Profile()), "b": deeper}
    )
    monkeypatch.setattr(side_profiles, "_diff", lambda *args: None)
    sides = [Side("a", "bench.py", "a"), Side("b", "bench.py", "b")]
    [entry] = side_profiles.profile_comparison(sides, result, ProfileSettings(), pairs=[("SMALL", "b")])
    assert entry.notes == ["b: 3 samples had stacks deeper than perf's stack dump"]
