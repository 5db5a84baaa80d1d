"""perflab.pytest_plugin.memory_per_call in this process (the e2e test runs it through pytest)."""

import memray

from perflab.pytest_plugin import memory_per_call


def test_another_memray_tracker_leaves_memory_unmeasured_with_the_reason(tmp_path):
    # pytest-memray's markers (or perflab's own handling of them) track the whole test: memray
    # allows one Tracker at a time, so the benchmark's memory is not measured, and says why.
    with memray.Tracker(tmp_path / "outer.bin"):
        use = memory_per_call.measure(lambda: bytearray(1000), 1e-6, "case", "benchmark", __file__)
    assert use.error is not None and use.error.startswith("memory not measured: ")
    assert "Tracker" in use.error and not use.allocated_per_call and use.retained_per_call is None
    assert memory_per_call.as_json(use) == {"error": use.error}
