"""Profiling the sides of a comparison together (perflab.profile.pairing.profile_group): real
workers and real py-spy; and the pieces that made it faster (samples of no frame, jobs side by side)."""

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from perflab.measure.parallel_checks import cpu_count, side_by_side
from perflab.measure.sides import contender_sides
from perflab.profile.pairing import another_round, profile_group
from perflab.profile.sampler import without_empty_stacks
from perflab.profile.session import sampling_cpus, with_spare_cpu_known
from perflab.profile.settings import (
    DEFAULT_RATE,
    INPROCESS,
    MAX_ROUNDS_FACTOR,
    NATIVE,
    OWN_CPU,
    PY_SPY,
    SHARED,
    ProfileSettings,
)
from perflab.profile.shares import frame_shares, widest_half_width
from perflab.profile.spare_cpu import has_spare_cpu, idle_cpus

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


def test_samples_of_no_frame_are_sampling_errors_not_an_unreadable_run():
    # What py-spy --nonblocking wrote at 1 kHz: a line of just a count (a stack it read empty).
    text = "main;work 52\n 2\nmain 3\n"
    assert without_empty_stacks(text) == ("main;work 52\nmain 3\n", 2)
    assert without_empty_stacks("main;work 52\n") == ("main;work 52\n", 0)
    # A malformed line that is not an empty stack is left for the parser to reject.
    assert without_empty_stacks("main;work\n") == ("main;work\n", 0)


def test_the_sampler_runs_on_another_cpu_than_the_target_only_when_it_never_stops_it():
    target, sampler = sampling_cpus(nonblocking=True)
    if cpu_count() >= 2:
        assert target is not None and sampler is not None and target != sampler
    else:
        assert (target, sampler) == (None, None)
    assert sampling_cpus(nonblocking=False) == (None, None)


def test_the_fast_default_rate_is_only_for_a_sampler_that_never_stops_the_target_with_a_cpu_to_spare():
    spare = ProfileSettings(spare_cpu=True)
    assert spare.rate_for(PY_SPY) == DEFAULT_RATE[OWN_CPU] > DEFAULT_RATE[SHARED]
    assert ProfileSettings(spare_cpu=False).rate_for(PY_SPY) == DEFAULT_RATE[SHARED]  # busy, or one CPU
    assert replace(spare, blocking=True).rate_for(PY_SPY) == DEFAULT_RATE[SHARED]  # each sample stops it
    assert spare.rate_for(INPROCESS) == DEFAULT_RATE[SHARED]  # the timer runs in the target
    assert replace(spare, native=True).rate_for(PY_SPY) == DEFAULT_RATE[NATIVE]
    assert replace(spare, rate=77, native=True).rate_for(PY_SPY) == 77
    # Looked at only where the rate depends on it, and once: the session's runs share one rate.
    assert with_spare_cpu_known(ProfileSettings(rate=500)).spare_cpu is None
    assert with_spare_cpu_known(ProfileSettings(native=True)).spare_cpu is None
    assert with_spare_cpu_known(spare) is spare
    assert with_spare_cpu_known(ProfileSettings()).spare_cpu in (True, False)


def test_a_machine_busy_on_every_cpu_has_no_cpu_to_spare_for_the_sampler():
    cpus = len(os.sched_getaffinity(0))
    busy = [
        subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 30\nwhile time.time() < end: pass"])
        for _ in range(cpus)
    ]
    try:
        time.sleep(0.3)  # running
        idle = idle_cpus()
        assert idle is not None and 0.0 <= idle <= cpus - 0.5
        assert not has_spare_cpu()
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_side_by_side_keeps_the_order_and_runs_at_most_one_job_per_cpu():
    running, most = [0], [0]
    lock = threading.Lock()

    def job(value):
        def call():
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1
            return value * 10

        return call

    assert side_by_side([job(v) for v in range(6)]) == [0, 10, 20, 30, 40, 50]
    assert most[0] == min(cpu_count(), 6)


def _simulated_session(rng, shares, run_sd, settings):
    """The rounds profile_group runs for one side, with runs drawn from ``shares`` (frames' true
    self shares, one stack each) whose per-run shares vary by ``run_sd`` (fresh processes differ)."""
    per_round = settings.samples // settings.min_runs
    frames = [(f"f{i}",) for i in range(len(shares))]
    runs = []
    while another_round(len(runs), settings, [widest_half_width(runs)] if runs else []):
        drawn = np.clip(rng.normal(shares, run_sd), 1e-6, None)
        counts = rng.multinomial(per_round, drawn / drawn.sum())
        runs.append(Counter({frame: int(c) for frame, c in zip(frames, counts) if c}))
    return runs


def test_the_adaptive_budget_stops_at_the_minimum_when_runs_agree_and_goes_on_when_they_do_not():
    settings = ProfileSettings(samples=2000, min_runs=5)
    shares = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(20261122)
    quiet = [len(_simulated_session(rng, shares, 0.0, settings)) for _ in range(200)]
    busy = [len(_simulated_session(rng, shares, 0.06, settings)) for _ in range(200)]
    assert np.mean(np.array(quiet) == 5) >= 0.9  # sampling alone: the promised precision in 2,000 samples
    assert np.mean(np.array(busy) > 5) >= 0.9 and max(busy) <= 5 * MAX_ROUNDS_FACTOR
    fixed = ProfileSettings(samples=2000, min_runs=5, adaptive_rounds=False)
    assert len(_simulated_session(rng, shares, 0.06, fixed)) == 5


def test_stopping_when_precise_keeps_the_intervals_covering_the_true_shares():
    # Optional stopping must not cost coverage: the intervals of the session as it stopped.
    settings = ProfileSettings(samples=2000, min_runs=5)
    shares = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(7)
    covered = total = precise = 0
    for _ in range(300):
        runs = _simulated_session(rng, shares, 0.03, settings)
        precise += widest_half_width(runs) <= settings.share_precision
        for share in frame_shares(runs):
            truth = shares[int(share.frame[1:])]
            covered += share.self.low <= truth <= share.self.high
            total += 1
    assert covered / total >= 0.93
    assert precise / 300 >= 0.9  # reached the promised precision within the round limit
