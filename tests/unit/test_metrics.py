"""--metric: instruction counts under real valgrind, memory in real workers, perf stat, and the
command line's failure paths (valgrind or perf missing from PATH)."""

from perflab.metrics import counters


def test_perf_stat_csv_is_parsed_with_unsupported_events():
    text = (
        "# started\n<not supported>,,cycles,0,100.00,,\n12,,context-switches,769685,100.00,,\n"
        "1234,,instructions:u,5,100.00,,\n"
    )
    assert counters.parse(text) == {"cycles": None, "context-switches": 12.0, "instructions": 1234.0}
