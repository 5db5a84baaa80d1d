"""``pytest --perflab --perflab-metric memory``: memory per call in the benchmark fixture's results
(terminal summary, benchmark.extra_info and benchmark.stats, --perflab-json, --benchmark-json, the
store), in one real pytest subprocess. That nothing about memory is measured without the option
is asserted by test_pytest_plugin.py's test_call_pedantic_extra_info_group_and_store."""

import json
import re
import sys
import textwrap

from support.pytest_runs import FAST, run_pytest

from perflab.results.history import metric_measurements
from perflab.results.store import Store

BLOCK = 100_000
# What one call allocates: the bytearray object with its buffer (100,057 bytes on 64-bit CPython).
BLOCK_BYTES = sys.getsizeof(bytearray(BLOCK))
# docs/metrics.md: bytes allocated per call are accurate to 64 bytes (below it, no memory verdict).
ACCURACY = 64

MEMORY_TESTS = f"""
import sys


def block():
    return bytearray({BLOCK})


def two_blocks():
    return bytearray(bytes({BLOCK}))  # a bytes object of the same size first, then the bytearray


def test_block(benchmark):
    assert len(benchmark(block)) == {BLOCK}
    figures = benchmark.extra_info["memory"]  # where pytest-benchmark users keep their own figures
    assert abs(figures["allocated_per_call"]["value"] - {BLOCK_BYTES}) <= {ACCURACY}, figures
    assert figures["allocated_per_call"] == {{
        "value": benchmark.stats.memory.allocated.value,
        "low": benchmark.stats.memory.allocated.low,
        "high": benchmark.stats.memory.allocated.high,
    }}
    print("MEASURED", figures["allocated_per_call"]["value"])


def test_compared(benchmark):
    benchmark.compare({{"block": block, "two_blocks": two_blocks}})
"""


def test_memory_per_call_in_every_result(tmp_path):
    """One pytest process: 3 benchmarks timed at FAST settings, each then measured for memory
    (3 memray runs and one tracemalloc pass in the process). Over 10 s: about 9 s with the
    machine to itself (30 s under a load of 7), most of it memray's tracking and reading of the
    3 x 3 runs, which is what is tested."""
    (tmp_path / "test_memory.py").write_text(textwrap.dedent(MEMORY_TESTS))
    done = run_pytest(
        tmp_path,
        "--perflab",
        "--perflab-metric",
        "memory",
        *FAST,
        "-s",
        "--perflab-json",
        tmp_path / "perflab.json",
        "--benchmark-json",
        tmp_path / "benchmark.json",
        check=True,
    )
    output = done.stdout
    measured = float(re.search(r"MEASURED ([\d.]+)", output)[1])
    assert abs(measured - BLOCK_BYTES) <= ACCURACY
    # The terminal summary: one memory line under each benchmark, in the memory table's units.
    shown = re.findall(r"memory: ([\d.]+) KiB \[[\d.]+ KiB, [\d.]+ KiB\] allocated/call, peak [\d.]+ KiB", output)
    assert [round(float(kib) * 1024 / BLOCK_BYTES) for kib in shown] == [1, 1, 2], output
    assert "range over 3 runs in this process" in output and "retained/call" in output
    assert "allocated/call vs block: 2.00x more memory [2.00x, 2.00x], memory verdict: more memory" in output
    # --perflab-json: `perflab run --metric memory`'s schema, every run's figure kept.
    run = json.loads((tmp_path / "perflab.json").read_text())["runs"][0]
    uses = {(use["case"], use["contender"]): use for use in run["metrics"]["memory"]}
    assert set(uses) == {("test_block", "benchmark"), ("test_compared", "block"), ("test_compared", "two_blocks")}
    for use in uses.values():
        assert len(use["allocated_per_call"]) == 3 and len(use["peak_allocated"]) == 3 and use["error"] is None
    assert all(abs(value - BLOCK_BYTES) <= ACCURACY for value in uses["test_block", "benchmark"]["allocated_per_call"])
    # --benchmark-json: extra_info as the test left it, and perflab's figures beside each contender's.
    entries = {entry["name"]: entry for entry in json.loads((tmp_path / "benchmark.json").read_text())["benchmarks"]}
    assert entries["test_block"]["extra_info"]["memory"] == entries["test_block"]["perflab"]["memory"]
    assert entries["test_compared::two_blocks"]["perflab"]["memory"]["allocated_per_call"]["value"] > 2 * BLOCK
    # The store: what `perflab history --metric memory` and the web's memory charts read.
    with Store.open(tmp_path / "perflab.db", create=False) as store:
        series = metric_measurements(store, "pytest:test_memory.py", "test_block", "benchmark", metric="memory")
    assert len(series) == 1 and abs(series[0].median - BLOCK_BYTES) <= ACCURACY
