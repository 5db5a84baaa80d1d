"""The machine's own speed (perflab.results.machine_speed): the probe's spread over a run's worker
processes, the warning where it changed, and the unpaired comparison it keeps from a verdict."""

from __future__ import annotations

import json
import random
import re

from support.store_results import synthetic_result

from perflab.results import machine_speed
from perflab.results.model import RunResult
from perflab.results.warnings import TIMING, load_difference, run_warnings

PROBE = 2e-4  # seconds of the probe on a steady machine


def with_probes(levels: list[float], seed: int = 0, noise: float = 0.03) -> RunResult:
    """A run whose worker processes saw the machine at ``levels`` (speed factors, one per process,
    cycled), each probe with its own ``noise`` (relative sd, as interrupts and caches give)."""
    rng = random.Random(seed)
    result = synthetic_result(processes=len(levels))
    for cell in result.cells:
        for index, run in enumerate(cell.runs):
            run.probes = [PROBE * levels[index] * (1 + rng.gauss(0, noise)) for _ in run.values]
    return result


def test_a_steady_machine_states_its_spread_and_warns_of_nothing():
    result = with_probes([1.0] * 20)
    machine_speed.record(result)
    stated = result.metadata["machine_speed"]
    assert stated["processes"] == 20 and stated["spread"] < 0.05
    assert "timing_warnings" not in result.metadata
    assert not machine_speed.varied(result)


def test_a_host_that_slows_the_cpu_by_70_percent_half_the_time_is_said_with_both_speeds():
    """This project's VM: the same loop took 9.5 ms and 17 ms a second apart, nothing else running."""
    result = with_probes([1.0, 1.7] * 10)
    machine_speed.record(result)
    assert machine_speed.varied(result)
    (warning,) = [w for w in run_warnings(result) if w.kind == TIMING]
    assert warning.text.startswith("the machine's own speed changed during the run: the same fixed work took")
    said = re.search(r"took (\d+) us in the slower tenth .* and (\d+) us in the faster tenth \(\+(\d+)", warning.text)
    assert said and 320 <= int(said[1]) <= 360 and 190 <= int(said[2]) <= 210 and 60 <= int(said[3]) <= 80
    data = json.loads(json.dumps(result.to_json()))  # kept in --json and in the store as is
    assert RunResult.from_json(data).metadata["machine_speed"]["spread"] > 0.6
    assert RunResult.from_json(data).cells[0].runs[0].probes == result.cells[0].runs[0].probes


def test_an_unpaired_comparison_of_a_run_whose_speed_changed_has_no_verdict():
    steady, varied = with_probes([1.0] * 20), with_probes([1.0, 1.7] * 10)
    for result in (steady, varied):
        machine_speed.record(result)
    assert load_difference(steady, steady) is None
    assert load_difference(steady, varied) == (
        "the machine's own speed changed during run B by more than 10%, which moves times between runs"
    )


def test_runs_without_probes_state_no_speed():
    """Files written before the probe, imports, and runs of fewer processes than MIN_PROCESSES."""
    for result in (synthetic_result(processes=20), with_probes([1.0, 1.7] * 2)):
        machine_speed.record(result)
        assert "machine_speed" not in result.metadata and not machine_speed.varied(result)


def test_a_steady_machine_almost_never_reads_as_one_whose_speed_changed():
    """Fixed seeds: 500 runs of a steady machine whose probes have 5% noise each (more than the
    probe's own on this VM) and whose processes drift by 2%: no warning in any."""
    rng = random.Random(38)
    warned = 0
    for seed in range(500):
        levels = [1 + rng.gauss(0, 0.02) for _ in range(rng.randint(6, 80))]
        result = with_probes(levels, seed=seed, noise=0.05)
        machine_speed.record(result)
        warned += machine_speed.varied(result)
    assert warned == 0
