"""What this runner can detect (perflab qualify): the floor's formula, the floors of A/A runs, how
they are stored per machine and said in check's summary. The floor's promise (80% detected just
above it) is checked by simulation in tests/simulation/test_detectable.py."""

from __future__ import annotations

import math

import pytest
from support.store_results import downgrade

from perflab.analysis import detectable, gate
from perflab.render.markdown import render_check
from perflab.results.model import CaseComparison, RunResult
from perflab.results.quantities import NO_DIFFERENCE, SLOWER, Comparison, Interval
from perflab.results.store import Store
from perflab.units import format_budget

MACHINE = {"cpu_model": "Test CPU", "cpu_count": 2, "os": "Linux", "kernel": "6.1"}
OTHER_MACHINE = {**MACHINE, "cpu_model": "Another CPU"}


def aa_run(contender: str, log_sds: dict[str, float], rounds: int = 10, machine: dict = MACHINE) -> RunResult:
    """An A/A run of ``contender`` as qualify makes it: two sides of that contender, one comparison per case."""
    again = f"{contender} (A/A)"
    return RunResult(
        benchmark="bench",
        file="/nowhere/bench.py",
        reference=contender,
        settings={},
        work={},
        metadata={"machine": machine},
        sides={contender: {"contender": contender}, again: {"contender": contender}},
        comparisons=[
            CaseComparison(
                case,
                again,
                contender,
                Comparison(Interval(1.0, 0.99, 1.01), 0.5, rounds, sd / math.sqrt(rounds)),
                0.5,
                NO_DIFFERENCE,
                True,
            )
            for case, sd in log_sds.items()
        ],
    )


def test_the_floor_grows_with_the_noise_and_falls_with_the_rounds():
    def floor(noise: float, rounds: int) -> float:
        return detectable.detectable_change(noise, rounds, alpha=0.01, min_effect=0.01, cells=1)

    assert floor(0.01, 10) < floor(0.02, 10) < floor(0.04, 10)
    assert floor(0.02, 40) < floor(0.02, 20) < floor(0.02, 10)
    assert math.isinf(floor(0.02, 1))  # one round: no interval, nothing detected


def test_the_floor_is_beyond_the_minimum_effect_and_beyond_what_the_test_can_call():
    quiet = detectable.detectable_change(0.0001, 30, alpha=0.01, min_effect=0.02, cells=1)
    assert 1.02 < quiet < 1.021  # the minimum effect, plus a little for the estimate's spread
    # Noisy: the t test's own critical value, plus 80% power, of the noise's upper bound.
    noise, rounds = 0.03, 10
    se = detectable.noise_bound(noise, rounds) / math.sqrt(rounds)
    assert detectable.noise_bound(noise, rounds) > noise
    assert detectable.detectable_change(noise, rounds, 0.01, 0.01, 1) == pytest.approx(
        math.exp((3.250 + 0.883) * se), rel=1e-3
    )


def test_more_cells_compared_raise_the_floor_as_the_correction_does():
    one = detectable.detectable_change(0.03, 10, 0.01, 0.01, cells=1)
    assert detectable.detectable_change(0.03, 10, 0.01, 0.01, cells=8) > one


def test_floors_of_every_cell_of_every_a_a_run_named_by_contender():
    runs = [aa_run("x", {"SMALL": 0.01, "BIG": 0.04}), aa_run("y", {"SMALL": 0.02})]
    qualified = detectable.qualify(runs, max_time=60.0, alpha=0.01, min_effect=0.01)
    assert [(f.case, f.contender) for f in qualified.floors] == [("SMALL", "x"), ("BIG", "x"), ("SMALL", "y")]
    small, big = qualified.floor("SMALL", "x"), qualified.floor("BIG", "x")
    assert small is not None and big is not None and small.change < big.change
    assert small.noise == pytest.approx(0.01) and small.rounds == 10
    # Three cells: corrected as check corrects its three verdicts.
    assert small.change == detectable.detectable_change(0.01, 10, 0.01, 0.01, cells=3)
    assert qualified.detects("SMALL", "x", 0.05).startswith(f"this runner detects >= {small.change - 1:.1%} at 60 s; ")
    assert qualified.detects("SMALL", "z", 0.05) is None


def test_qualifications_are_stored_per_machine_and_the_latest_wins(tmp_path):
    def qualified(sd: float, machine: dict = MACHINE) -> detectable.Qualification:
        return detectable.qualify([aa_run("x", {"SMALL": sd}, machine=machine)], 60.0, 0.01, 0.01)

    with Store.open(tmp_path / "perflab.db") as store:
        assert store.qualification("bench", MACHINE) is None
        first, later = qualified(0.02), qualified(0.01)
        store.save_qualification(first, [aa_run("x", {"SMALL": 0.02})])
        store.save_qualification(later, [aa_run("x", {"SMALL": 0.01})])
        store.save_qualification(qualified(0.05, OTHER_MACHINE), [aa_run("x", {"SMALL": 0.05})])
        found = store.qualification("bench", MACHINE)
        assert found is not None and found.floors == later.floors and found.max_time == 60.0
        assert store.qualification("bench", OTHER_MACHINE).floors != later.floors
        assert store.qualification("other bench", MACHINE) is None


def test_a_store_of_the_previous_schema_gets_the_qualifications_table(tmp_path):
    path = tmp_path / "perflab.db"
    Store.open(path).close()
    downgrade(path, 4)
    with Store.open(path) as store:
        store.save_qualification(detectable.qualify([aa_run("x", {"SMALL": 0.02})], 60.0, 0.01, 0.01), [])
        assert store.qualification("bench", MACHINE) is not None


def checked(verdict: str, qualification: detectable.Qualification | None, paired: bool = True) -> gate.CheckResult:
    comparison = gate.GateComparison(Interval(1.004, 0.99, 1.02), 0.5, 1.0, (10, 10))
    cell = gate.CellCheck("SMALL", "x", 1e-5, 1.004e-5, comparison, verdict)
    return gate.CheckResult(0.05, 0.01, paired=paired, cells=[cell], qualification=qualification)


def test_check_says_what_this_runner_detects_beside_no_detectable_difference():
    qualified = detectable.qualify([aa_run("x", {"SMALL": 0.02})], 60.0, 0.01, 0.01)
    floor = qualified.floor("SMALL", "x")
    assert floor is not None
    text = render_check(checked(NO_DIFFERENCE, qualified), "bench", "b", "c")
    assert f"| no detectable difference; this runner detects >= {floor.change - 1:.1%} at 60 s; " in text
    assert "perflab qualify" not in text
    # A verdict that found something needs no floor beside it.
    assert "this runner detects" not in render_check(checked(SLOWER, qualified), "bench", "b", "c")


def test_check_without_a_qualification_says_how_to_get_one():
    text = render_check(checked(NO_DIFFERENCE, None), "bench", "b", "c")
    assert "| no detectable difference |" in text and "`perflab qualify`" in text
    # Against a results file (unpaired) the A/A floor does not apply: nothing is said.
    unpaired = render_check(checked(NO_DIFFERENCE, None, paired=False), "bench", "b", "c")
    assert "qualify" not in unpaired and "this runner detects" not in unpaired


def test_the_rounds_projected_are_the_fewest_that_detect_the_smaller_change():
    noise, rounds = 0.02, 10
    change = 1 + (detectable.detectable_change(noise, rounds, 0.01, 0.01, 1) - 1) / 2
    projected = detectable.rounds_to_detect(change, noise, rounds, 0.01, 0.01, 1)
    assert projected is not None and projected > 2 * rounds  # half the change: more than twice the rounds

    def at(n: int) -> float:  # the floor at n rounds of the A/A's noise bound
        bound = detectable.noise_bound(noise, rounds) / detectable.noise_bound(noise, n)
        return detectable.detectable_change(noise * bound, n, 0.01, 0.01, 1)

    assert at(projected) <= change < at(projected - 1)
    # Within the minimum effect no budget detects it; a tiny effect in heavy noise is not worth stating.
    assert detectable.rounds_to_detect(1.009, noise, rounds, 0.01, 0.01, 1) is None
    assert detectable.rounds_to_detect(1.0101, 0.5, rounds, 0.01, 0.01, 1) is None


def test_the_projection_is_for_the_threshold_above_the_floor_else_for_half_the_floor():
    assert detectable.projected_change(1.08, threshold=0.05) == pytest.approx(1.05)
    assert detectable.projected_change(1.031, threshold=0.05) == pytest.approx(1.0155)


def projected(noise: float, seconds: float = 60.0, threshold: float = 0.05) -> str:
    """What check says beside "no detectable difference" of a cell qualified at ``noise``, 10 rounds in ``seconds``."""
    floor = detectable.floor_of(
        "SMALL", "x", aa_run("x", {"SMALL": noise}).comparisons[0].comparison, 0.01, 0.01, 1, seconds
    )
    return detectable.Qualification("bench", MACHINE, 60.0, 0.01, 0.01, [floor]).detects("SMALL", "x", threshold) or ""


def test_check_says_the_budget_and_precision_that_detect_the_smaller_change():
    # 2% noise over 10 rounds in 60 s: a floor of 3.4%; half of it, 1.7%, needs 31 rounds, 186 s,
    # said as 190 s (two digits, rounded up), with the precision that does not stop the run sooner.
    assert detectable.rounds_to_detect(1.017, 0.02, 10, 0.01, 0.01, 1) == 31
    assert projected(0.02) == (
        "this runner detects >= 3.4% at 60 s; 1.7% needs ~190 s (--max-time 190 --precision 0.63)"
    )
    # The rounds grow at the rate the A/A run bought them: one that reached its precision in 30 s
    # of its 60 projects half the time.
    assert projected(0.02, seconds=30.0).endswith("1.7% needs ~93 s (--max-time 93 --precision 0.63)")
    # An A/A run stopped by --precision long before its budget: the floor is that precision's, and
    # within the budget only a finer precision is needed (a longer --max-time alone changes nothing).
    assert projected(0.02, seconds=5.0) == (
        "this runner detects >= 3.4% at 60 s (its A/A reached --precision in ~5 s); 1.7% needs --precision 0.63 (~16 s)"
    )
    # Above the check's threshold the projection is for the threshold.
    assert "; 2.0% needs ~" in projected(0.02, threshold=0.02)
    # A floor whose half is within --min-effect projects nothing, and says why.
    assert projected(0.004) == "this runner detects >= 1.1% at 60 s; smaller changes are within --min-effect 1.0%"


def test_a_qualification_stored_before_the_seconds_were_takes_its_budget():
    stored = detectable.qualify([aa_run("x", {"SMALL": 0.02})], 60.0, 0.01, 0.01).to_json()
    del stored["floors"][0]["seconds"]
    assert detectable.Qualification.from_json(stored).floors[0].seconds == 60.0


def test_check_json_carries_what_this_runner_detects_and_the_projected_budget():
    qualified = detectable.qualify([aa_run("x", {"SMALL": 0.02})], 60.0, 0.01, 0.01)
    data = checked(NO_DIFFERENCE, qualified).to_json("bench", "b", "c")
    cell = data["cells"][0]
    assert cell["detects"] == qualified.detects("SMALL", "x", 0.05)
    assert cell["projected"]["change"] < qualified.floors[0].change and cell["projected"]["max_time"] > 60
    found = checked(SLOWER, qualified).to_json("bench", "b", "c")["cells"][0]
    assert found["detects"] is None and found["projected"] is None


def test_budgets_are_said_in_seconds_as_max_time_takes_them():
    assert [format_budget(s) for s in (2.5, 60.0, 240.0, 1200.0, 36000.0)] == [
        "2.5 s",
        "60 s",
        "240 s",
        "1,200 s",
        "36,000 s",
    ]
