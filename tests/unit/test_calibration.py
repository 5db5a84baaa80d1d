"""The calibration rule (how many calls one value holds), driven with scripted timings: a loaded
machine's one slow reading must not decide the loop count of a whole run."""

from perflab.bench.worker.region import calibrate_region, calibration_steps


def calibrated(value_time, seconds_per_call, max_loops=10**9):
    """Run the rule, each batch taking ``loops * seconds_per_call(i)`` for its i-th batch; return
    the loop count and the batches timed."""
    steps = calibration_steps(value_time, max_loops)
    batches = []
    loops = next(steps)
    try:
        while True:
            batches.append(loops)
            loops = steps.send(loops * seconds_per_call(len(batches) - 1))
    except StopIteration as done:
        return done.value, batches


def test_a_cheap_call_fills_a_value_with_many_calls():
    loops, _ = calibrated(0.005, lambda i: 1e-6)
    assert loops == 5000


def test_one_slow_first_call_does_not_make_every_value_one_call():
    # The first call lost the CPU for 6 ms (a loaded machine) or was cold: the next ones take 0.2 ms.
    loops, _ = calibrated(0.005, lambda i: 0.006 if i == 0 else 0.0002)
    assert loops == 25


def test_a_call_as_long_as_a_value_is_timed_twice_then_one_per_value():
    loops, batches = calibrated(0.005, lambda i: 0.008)
    assert loops == 1 and batches == [1, 1]


def test_a_limit_of_one_call_per_value_is_kept():
    loops, _ = calibrated(0.005, lambda i: 1e-6, max_loops=1)
    assert loops == 1


def test_the_processs_first_call_stands_for_the_first_batch():
    """A slow call is timed once more, not twice: the first call, timed apart, is the rule's first batch."""
    batches = []

    def region(loops):
        batches.append(loops)
        return loops * 0.8

    assert calibrate_region(region, 0.005, 10**9, first=0.3) == 1 and batches == [1]
    # A first call of half a second or more is one call a value without another call.
    batches.clear()
    assert calibrate_region(region, 0.005, 10**9, first=0.9) == 1 and batches == []
    # A cold first call that a second one contradicts still leads to the usual calibration.
    batches.clear()
    assert calibrate_region(lambda loops: batches.append(loops) or loops * 0.0002, 0.005, 10**9, first=0.006) == 25
