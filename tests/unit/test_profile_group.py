"""Profiling the sides of a comparison together (perflab.profile.pairing.profile_group): real
workers and real py-spy; and the pieces that made it faster (samples of no frame, jobs side by side)."""

import threading
import time
from dataclasses import replace

from perflab.measure.parallel_checks import cpu_count, side_by_side
from perflab.profile.sampler import without_empty_stacks
from perflab.profile.session import sampling_cpus, with_spare_cpu_known
from perflab.profile.settings import (
    DEFAULT_RATE,
    INPROCESS,
    NATIVE,
    OWN_CPU,
    PY_SPY,
    SHARED,
    ProfileSettings,
)


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
