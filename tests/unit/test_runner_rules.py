"""The runner's own rules, driven in-process through its worker seam (perflab.measure.launcher.Worker)
by scripted workers (tests/support/scripted_workers.py) on a fake clock: the stopping rule, the
interleaving, the deadline, a worker that fails and Ctrl-C, without starting a process or waiting.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

import pytest
from rich.console import Console
from support.scripted_workers import (
    CALIBRATION_ROUNDS,
    LOOPS,
    QUICK,
    SETUP_SECONDS,
    Lab,
    ScriptedWorker,
    noisy,
)

from perflab.analysis import estimates
from perflab.measure.budget import TIMING_FLOOR
from perflab.measure.settings import Settings
from perflab.render.terminal.results import render
from perflab.results.model import Cell, RunResult

pytestmark = pytest.mark.usefixtures("no_processes")


def measured_rounds(cell: Cell) -> int:
    return len(cell.measured_runs())


def ratio_precision(result: RunResult, case: str, contender: str, rounds: int | None = None) -> float:
    """The stopping rule's quantity: the relative half-width of the ratio's 95% interval, over the
    first ``rounds`` measured rounds (all by default)."""
    reference, cell = result.cell(case, result.reference), result.cell(case, contender)
    keep = sorted(reference.round_values())[:rounds]
    return estimates.compare_paired(
        {r: reference.round_values()[r] for r in keep}, {r: cell.round_values()[r] for r in keep}
    ).ratio.relative_half_width


def test_a_case_stops_at_the_first_round_that_reaches_the_precision():
    lab = Lab(noisy(0.05, times={"b": 2e-6}))
    result = lab.run(
        Settings(stop_when="precise", precision=0.01, min_rounds=2, max_time=1e6, **QUICK), ["x"], ["a", "b"]
    )
    rounds = measured_rounds(result.cell("x", "b"))
    assert rounds > 2  # the precision, not min_rounds, decided when to stop
    assert ratio_precision(result, "x", "b") <= 0.01 < ratio_precision(result, "x", "b", rounds - 1)
    assert result.cell("x", "b").target_reached and not result.interrupted


def test_a_precise_case_still_runs_min_rounds_and_then_stops():
    lab = Lab(noisy(1e-6, times={"b": 2e-6}))  # precise from the first round
    result = lab.run(Settings(precision=0.01, min_rounds=4, max_time=1e6, **QUICK), ["x"], ["a", "b"])
    assert [measured_rounds(result.cell("x", c)) for c in ("a", "b")] == [4, 4]
    assert len(lab.timing_workers()) == 2 * (4 + CALIBRATION_ROUNDS)
    assert result.comparisons[0].comparison.ratio.value == pytest.approx(2.0)


def test_the_run_stops_once_its_time_budget_is_spent_keeping_the_values():
    lab = Lab(noisy(0.9))  # never precise at 0.1%
    budget = 0.5  # fake seconds; one value lasts ~1 ms of it
    result = lab.run(Settings(precision=0.001, min_rounds=2, max_time=budget, **QUICK), ["x"], ["a", "b"])
    # The budget counts from the checks' start, at 0 here (the checks take no fake time); past
    # it, at most one worker's set-up or one value is finished.
    assert 0 <= lab.clock.now - budget <= max(SETUP_SECONDS, 2e-6 * LOOPS)
    assert all(worker.closed for worker in lab.started)
    cell = result.cell("x", "b")
    assert measured_rounds(cell) >= 2 and not cell.target_reached and not cell.error
    assert result.comparisons  # what was measured before the budget ran out is compared


@pytest.mark.parametrize(
    "check_seconds, ends_at",
    [
        (0.05, 1.0),  # quick checks: the whole run ends with the budget
        (0.45, 0.9 + TIMING_FLOOR),  # slow ones: the timing phase still has its floor share
    ],
)
def test_the_checks_time_counts_in_the_budget_and_the_timing_keeps_a_share_of_it(check_seconds, ends_at):
    lab = Lab(noisy(0.9))  # never precise at 0.1%
    lab.check_seconds = check_seconds  # each of the two check jobs (one per contender)
    lab.run(Settings(precision=0.001, min_rounds=2, max_time=1.0, **QUICK), ["x"], ["a", "b"])
    assert 0 <= lab.clock.now - ends_at <= max(SETUP_SECONDS, 2e-6 * LOOPS)


def test_values_alternate_between_contenders_and_the_first_one_changes_every_round():
    lab = Lab(noisy(1e-6))
    settings = Settings(precision=1.0, min_rounds=2, max_time=1e6, warmups=1, values=4, value_time=0.001)
    lab.run(settings, ["x"], ["a", "b", "c"])
    first_round = [(c, kind) for r, c, kind in lab.requests if r == 0]
    assert first_round == [("a", "warmup"), ("b", "warmup"), ("c", "warmup")] + [
        (c, "value") for c in ["a", "b", "c", "c", "b", "a", "a", "b", "c", "c", "b", "a"]
    ]
    second_round = [c for r, c, kind in lab.requests if r == 1 and kind == "value"]
    assert second_round == ["c", "b", "a", "a", "b", "c", "c", "b", "a", "a", "b", "c"]
    # Workers of one round are started in the order they are first asked for values.
    assert [w.job["contender"] for w in lab.timing_workers()[3:6]] == ["c", "b", "a"]


def test_cases_take_turns_round_by_round():
    lab = Lab(noisy(1e-6))
    lab.run(Settings(stop_when="precise", precision=1.0, min_rounds=2, max_time=1e6, **QUICK), ["x", "y"], ["a", "b"])
    order = [(w.job["case"], lab.round_of(w)) for w in lab.timing_workers()]
    assert order == [(case, r) for r in range(CALIBRATION_ROUNDS + 2) for case in ("x", "y") for _ in "ab"]


@pytest.mark.parametrize(
    "error", ["worker killed by signal SIGKILL", "timed out after 5 s (per-job timeout, see --timeout)"]
)
def test_a_worker_that_fails_mid_run_marks_its_cell_and_the_others_keep_their_values(error):
    def fail(worker: ScriptedWorker, kind: str) -> str | None:
        failing = Lab.key(worker) == ("x", "b") and worker.lab.round_of(worker) == 2 and worker.values == 3
        return error if failing else None

    lab = Lab(noisy(0.05, times={"b": 2e-6}), fail)
    result = lab.run(
        Settings(stop_when="precise", precision=0.02, min_rounds=4, max_time=5, **QUICK), ["x", "y"], ["a", "b"]
    )
    failed = result.cell("x", "b")
    assert failed.error == error
    assert measured_rounds(failed) == 2  # rounds 1 and 2 (its values before the failure kept)
    assert failed.runs[-1].error == error and len(failed.runs[-1].values) == 3
    # The failed cell's wide interval does not hold its case until the budget: "a" goes on alone.
    assert result.cell("x", "a").target_reached and not result.cell("x", "a").error
    assert not failed.target_reached and lab.clock.now < 5 / 2  # far from the budget (5)
    for contender in ("a", "b"):  # the other case is measured to the end
        cell = result.cell("y", contender)
        assert not cell.error and cell.target_reached
    assert [(c.case, c.contender) for c in result.comparisons if c.case == "y"] == [("y", "b")]
    assert all(worker.closed for worker in lab.started)


def test_ctrl_c_mid_run_keeps_what_was_measured_and_closes_every_worker():
    def interrupt(worker: ScriptedWorker, kind: str) -> str | None:
        if worker.lab.round_of(worker) == 3 and worker.values == 5:
            raise KeyboardInterrupt
        return None

    lab = Lab(noisy(0.3, times={"b": 2e-6}), interrupt)
    result = lab.run(Settings(precision=0.001, min_rounds=2, max_time=1e6, **QUICK), ["x"], ["a", "b"])
    assert result.interrupted
    assert all(worker.closed for worker in lab.started)
    cell = result.cell("x", "a")
    assert measured_rounds(cell) == 3 and len(cell.runs[-1].values) == 5  # the interrupted round's values too
    assert result.comparisons and result.comparisons[0].comparison.ratio.value == pytest.approx(2.0, rel=0.2)


def test_a_run_too_short_to_check_for_repeat_only_speed_says_so_beside_the_speedup():
    """Fewer than 3 processes per side with a first call: a memo cache would pass unjudged."""
    lab = Lab(noisy(0.5, times={"a": 2e-6}))  # b is twice as fast; never precise at 1%
    # 0.1 fake seconds: the calibration round (~0.05: no length check fits such a budget) and part of
    # one measured round
    short = lab.run(Settings(precision=0.01, min_rounds=1, max_time=0.1, **QUICK), ["x"], ["a", "b"])
    assert [len(short.cell("x", c).runs) for c in ("a", "b")] == [2, 2]
    assert short.comparisons[0].valid and short.comparisons[0].caution is None
    assert short.comparisons[0].unchecked == (
        "not checked for repeat-only speed (a memo cache answering the timing loop's repeated input): "
        "first calls of 2 processes on a side, 3 needed; raise --max-time"
    )
    long_enough = Lab(noisy(0.5, times={"a": 2e-6})).run(
        Settings(precision=0.01, min_rounds=1, max_time=0.2, **QUICK), ["x"], ["a", "b"]
    )
    assert min(len(long_enough.cell("x", c).runs) for c in ("a", "b")) >= 3
    assert long_enough.comparisons[0].unchecked is None
    assert "unchecked x/b: not checked for repeat-only speed" in shown(short)


def test_a_budget_spent_before_a_measured_round_is_named_as_the_reason_nothing_was_timed():
    lab = Lab(noisy(0.5))
    result = lab.run(Settings(precision=0.01, min_rounds=1, max_time=0.04, **QUICK), ["x"], ["a", "b"])
    assert not any(cell.measured_runs() for cell in result.cells)
    # The budget held the calibration round (~33 ms of fake time: two workers' set-up and values)
    # and not the two measured rounds an interval needs, which would take as long each.
    assert (
        "nothing was timed (the time budget (--max-time 0.04 s) ran out before 1 of 1 case(s) had the 2 "
        "measured rounds an interval needs: a round of one case took 32.8 ms here (one process per side, "
        "with its set-up and first call); raise --max-time to about 0.11 s, or time fewer cases (-b REGEX))"
    ) in shown(result)


def test_a_budget_that_holds_too_few_rounds_of_every_case_says_what_budget_would():
    """Two cases whose rounds cost ~33 ms of fake time each: 50 ms hold one case's calibration
    round; it needs two measured rounds more, the other case all three."""
    lab = Lab(noisy(0.5))
    result = lab.run(Settings(precision=0.01, min_rounds=2, max_time=0.05, **QUICK), ["x", "y"], ["a", "b"])
    said = result.metadata["over_budget"]
    assert said == (
        "the time budget (--max-time 0.05 s) ran out before 2 of 2 case(s) had the 2 measured rounds an "
        "interval needs: a round of one case took 32.8 ms here (one process per side, with its set-up and "
        "first call); raise --max-time to about 0.21 s, or time fewer cases (-b REGEX)"
    )
    assert said in result.failures


def shown(result: RunResult) -> str:
    """What the terminal shows of ``result`` (on a machine that is not busy)."""
    result.metadata.update(machine={"cpu_count": 2}, load_average_at_start=0.0)
    console = Console(record=True, width=300)
    render(result, console)
    return " ".join(console.export_text().split())


@pytest.mark.parametrize(
    ("imported", "looked_up"),
    [(["perflab_benchmark_bench"], None), (["perflab_benchmark_bench", "numpy"], ["numpy"])],
)
def test_the_packages_worker_starts_only_for_modules_other_than_the_benchmark_files_own(imported, looked_up):
    """Every timing worker reports the benchmark file's module among those it imported: that is no
    installed distribution, and a run that imports nothing else starts no worker to look one up,
    with the same (empty) "packages" in its metadata."""
    lab = Lab(noisy(0.0))
    lab.modules = imported
    result = lab.run(Settings(precision=0.5, min_rounds=2, max_time=1e6, **QUICK), ["x"], ["a", "b"])
    jobs = [worker.job for worker in lab.started if worker.job["mode"] == "packages"]
    assert [job["modules"] for job in jobs] == ([looked_up] if looked_up else [])
    assert result.metadata["packages"] == {}


def test_every_side_of_a_case_gets_values_of_one_length_however_long_its_calls():
    """A 24 ms call against a 5 ms one: five calls of the short side make one value of the long
    side's length, so that other processes' time slices stretch both alike."""
    lab = Lab(noisy(0.01, times={"a": 24e-3, "b": 5e-3}))
    settings = Settings(precision=1.0, min_rounds=3, max_time=1e6, warmups=1, values=10, value_time=0.005)
    result = lab.run(settings, ["x"], ["a", "b"])
    for run_a, run_b in zip(result.cell("x", "a").measured_runs(), result.cell("x", "b").measured_runs()):
        length_a, length_b = run_a.loops * 24e-3, run_b.loops * 5e-3
        assert length_b == pytest.approx(length_a, rel=0.1)
    assert result.metadata["value_lengths"]["x"]["seconds"] >= 24e-3


def test_a_value_length_that_moves_the_estimate_is_lengthened_until_it_does_not_and_said():
    """Work done once per value (1 ms, whatever its calls): short values overstate the time per
    call. The length checks lengthen the values until two lengths agree, and the result says so."""
    lab = Lab(noisy(0.001))
    lab.per_value = {"a": 1e-3}
    settings = Settings(precision=1.0, min_rounds=3, max_time=1e6, warmups=1, values=10, value_time=0.001)
    result = lab.run(settings, ["x"], ["a"])
    checks = result.metadata["value_lengths"]["x"]["checked"]
    assert checks[0]["moved"] and not checks[-1]["moved"]
    assert checks[0]["ratio"] < 0.7  # the first check: 4x longer values, ~40% less per call
    measured = result.cell("x", "a").estimates.median.value
    assert measured == pytest.approx(1e-6, rel=0.05)  # the operation's own time, not the per-value work
    assert any(w.startswith("value length moved the estimate on x: a took") for w in result.metadata["timing_warnings"])
    calibration_rounds = sum(run.calibration for run in result.cell("x", "a").runs)
    assert calibration_rounds == len({c["short"] for c in checks}) > 1


def test_the_cpu_clock_times_the_thread_and_keeps_wall_time_beside_it():
    lab = Lab(noisy(0.001))
    lab.cpu_share = {"a": 0.5}  # a waits half of every value for a CPU
    settings = Settings(precision=1.0, min_rounds=3, max_time=1e6, clock="cpu", **QUICK)
    result = lab.run(settings, ["x"], ["a", "b"])
    run = result.cell("x", "a").measured_runs()[0]
    assert statistics.median(run.values) == pytest.approx(0.5e-6, rel=0.01)
    assert statistics.median(run.wall_values) == pytest.approx(1e-6, rel=0.01)
    assert result.comparisons[0].comparison.ratio.value == pytest.approx(2.0, rel=0.01)
    assert "timing_warnings" not in result.metadata


@pytest.mark.parametrize("sleeps", [False, True])
def test_a_wall_time_ratio_that_cpu_time_contradicts_is_said_for_cpu_bound_code(sleeps):
    """a waits half of every value: for a CPU (other processes had it) the wall-time ratio is
    wrong and the run says so; while sleeping (the operation's own waiting) it is right."""
    lab = Lab(noisy(0.001))
    lab.cpu_share = {"a": 0.5}
    lab.sleeping = {"a"} if sleeps else set()
    result = lab.run(Settings(precision=1.0, min_rounds=3, max_time=1e6, **QUICK), ["x"], ["a", "b"])
    assert result.comparisons[0].comparison.ratio.value == pytest.approx(1.0, rel=0.01)
    warnings = result.metadata.get("timing_warnings", [])
    if sleeps:
        assert warnings == []
    else:
        assert len(warnings) == 1 and warnings[0].startswith("wall time and CPU time disagree on x/b:")
        assert "waiting for a CPU: a 50.0%, b 0% of the wall time" in warnings[0]
        assert result.metadata["waiting_for_cpu"]["x"]["a"] == pytest.approx(0.5, rel=0.01)


def test_a_budget_too_small_for_a_length_check_calibrates_with_a_few_values_and_says_so():
    lab = Lab(noisy(0.01))
    result = lab.run(Settings(precision=0.01, min_rounds=1, max_time=0.1, **QUICK), ["x"], ["a", "b"])
    calibration = result.cell("x", "a").runs[0]
    assert calibration.calibration and len(set(calibration.value_loops or [])) == 1  # one length only
    assert len(calibration.values) == 5  # value_length.MIN_VALUES, not QUICK's 10
    assert result.metadata["value_lengths"]["x"]["unchecked"].startswith("not checked: a check of two lengths")


# ---- the stopping rule on the answer (issue 40) --------------------------------------------------


def stop(result: RunResult, case: str = "x") -> dict[str, Any]:
    return result.metadata["stopped"][case]


def test_a_clear_difference_stops_once_decided_long_before_the_precision_would():
    settings = Settings(precision=0.01, min_rounds=5, max_time=1e6, **QUICK)
    decided = Lab(noisy(0.1, times={"b": 2e-6})).run(settings, ["x"], ["a", "b"])
    asked = Lab(noisy(0.1, times={"b": 2e-6})).run(
        Settings(stop_when="precise", precision=0.01, min_rounds=5, max_time=1e6, **QUICK), ["x"], ["a", "b"]
    )
    assert stop(decided) == {"why": "decided", "rounds": measured_rounds(decided.cell("x", "b"))}
    assert stop(asked)["why"] == "precise" and stop(asked)["rounds"] > 3 * stop(decided)["rounds"]
    comparison = decided.comparisons[0]
    assert comparison.comparison.anytime and not asked.comparisons[0].comparison.anytime
    assert comparison.verdict == "slower" and comparison.comparison.ratio.low > 1.01
    # Its size is known to half its log, not to the 1% asked for when it is not decided.
    assert 0.01 < comparison.comparison.ratio.relative_half_width <= 0.5 * math.log(2)
    text = shown(decided)
    assert f"decided after {stop(decided)['rounds']} rounds" in text and "NOT reached" not in text and " !" not in text


def test_no_difference_beyond_the_minimum_effect_is_decided_too():
    settings = Settings(precision=0.001, min_effect=0.05, min_rounds=5, max_time=1e6, **QUICK)
    result = Lab(noisy(0.1)).run(settings, ["x"], ["a", "b"])
    ratio = result.comparisons[0].comparison.ratio
    assert stop(result)["why"] == "decided" and 0.95 < ratio.low < ratio.high < 1.05
    assert result.comparisons[0].verdict == "no detectable difference"


def test_a_round_count_fixed_in_advance_keeps_fixed_sample_intervals():
    result = Lab(noisy(0.1, times={"b": 2e-6})).run(
        Settings(precision=0.01, min_rounds=6, max_rounds=6, max_time=1e6, **QUICK), ["x"], ["a", "b"]
    )
    assert stop(result) == {"why": "rounds", "rounds": 6} and not result.comparisons[0].comparison.anytime


def test_a_budget_spent_first_is_said_as_the_reason_and_the_intervals_stay_anytime_valid():
    result = Lab(noisy(0.9)).run(Settings(precision=0.001, min_rounds=2, max_time=0.5, **QUICK), ["x"], ["a", "b"])
    assert stop(result)["why"] == "budget" and result.comparisons[0].comparison.anytime
    assert "not decided and precision target ±0.1% NOT reached" in shown(result)


def test_each_case_stops_on_its_own_answer():
    def value(case: str, contender: str, index: int) -> float:
        slower = {"x": 3.0, "y": 1.002}[case] if contender == "b" else 1.0  # x decided at once, y never
        return 1e-6 * slower * (1 + generator.uniform(-0.1, 0.1))

    generator = random.Random(3)
    result = Lab(value).run(Settings(precision=0.01, min_rounds=5, max_time=2.0, **QUICK), ["x", "y"], ["a", "b"])
    assert stop(result, "x")["why"] == "decided" and stop(result, "y")["why"] in ("precise", "budget")
    assert stop(result, "x")["rounds"] < stop(result, "y")["rounds"]


def test_rounds_the_budget_cut_before_the_rule_could_look_keep_a_t_interval():
    """The rule looks at the values only from min_rounds on; fewer rounds ended with the budget,
    which does not look at them, so their fixed-sample interval holds (and is finite at 2-4
    rounds, where the anytime one is not)."""
    result = Lab(noisy(0.1, times={"b": 2e-6})).run(
        Settings(precision=0.01, min_rounds=8, max_time=0.2, **QUICK), ["x"], ["a", "b"]
    )
    assert stop(result)["why"] == "budget" and 2 <= stop(result)["rounds"] < 8
    comparison = result.comparisons[0].comparison
    assert not comparison.anytime and comparison.ratio.high < float("inf")


def test_a_slow_case_is_measured_from_its_first_round_with_fewer_values_and_says_so():
    """Calls of 4 s against a 30 s budget (pyperformance's async_tree here): no calibration round
    (one call a value already, no longer values affordable), no warmups, one value a process, so
    that the budget holds the rounds an interval needs; the result says so."""
    lab = Lab(noisy(0.05, times={"a": 4.0}))
    lab.slow_call = 4.0
    result = lab.run(Settings(max_time=30.0, timeout=60.0), ["x"], ["a"])
    runs = result.cell("x", "a").runs
    assert runs and not any(run.calibration for run in runs)
    assert all(run.warmups == [] and len(run.values) <= 1 for run in runs)
    assert measured_rounds(result.cell("x", "a")) >= 2
    estimate = result.cell("x", "a").estimates.median
    assert math.isfinite(estimate.low) and math.isfinite(estimate.high)
    assert result.metadata["value_lengths"]["x"]["values_per_process"] == 1
    said = [w for w in result.metadata["timing_warnings"] if w.startswith("x: one value lasts ")]
    assert said and "each process gave 1 value(s) after 0 warmup(s) (not 20 after 2)" in said[0]


def test_a_benchmark_that_compares_no_outputs_starts_no_check_job():
    """A pyperf script's: its check would only run each case's set-up once more; the verdicts say
    that nothing was compared, and the cases are timed."""
    lab = Lab(noisy(0.01))
    result = lab.run(Settings(precision=0.5, min_rounds=2, max_time=1e6, **QUICK), ["x", "y"], ["a"], compares=False)
    assert {worker.job["mode"] for worker in lab.started} == {"time"}
    assert [(v.case, v.status, v.comparator) for v in result.equivalence] == [
        ("x", "reference", "not compared (pyperf script)"),
        ("y", "reference", "not compared (pyperf script)"),
    ]
    assert all(measured_rounds(result.cell(case, "a")) >= 2 for case in ("x", "y"))


def test_a_long_first_call_before_short_ones_leaves_its_round_to_calibration():
    """A first call of 0.6 s (a lazy import) before calls of 0.2 ms: the round taken as measured
    (one call a value, no length check affordable) is demoted to calibration by its own values,
    and the next rounds' values hold enough calls to last the value time."""
    lab = Lab(noisy(0.01, times={"a": 2e-4}))
    lab.slow_call = 0.6
    result = lab.run(Settings(precision=0.5, min_rounds=2, max_time=10.0, **QUICK), ["x"], ["a"])
    runs = result.cell("x", "a").runs
    assert runs[0].calibration and runs[0].loops == 1
    assert not runs[1].calibration and runs[1].loops == 5  # 1 ms values of 0.2 ms calls


def test_sides_whose_slow_calls_differ_several_fold_keep_their_calibration_round():
    """A 4 s call beside a 1 s one: one call a value on each side now, but the common length gives
    the shorter side 4 calls a value, so the first round only calibrates."""
    lab = Lab(noisy(0.01, times={"a": 4.0, "b": 1.0}))
    lab.slow_call = {"a": 4.0, "b": 1.0}
    result = lab.run(Settings(precision=0.5, min_rounds=2, max_time=300.0, timeout=60.0), ["x"], ["a", "b"])
    first, later = result.cell("x", "b").runs[0], result.cell("x", "b").runs[1]
    assert first.calibration and first.loops == 1
    assert not later.calibration and later.loops == 4
