"""--metric: instruction counts under real valgrind, memory in real workers, perf stat, and the
command line's failure paths (valgrind or perf missing from PATH)."""

import math

import pytest
from support.metrics_shared import WORK_BENCH

from perflab.bench.loading import load_benchmark
from perflab.measure.runner import run_benchmark
from perflab.measure.settings import Settings
from perflab.metrics import instructions, memory
from perflab.metrics.count_jobs import Target

MEMORY_BENCH = """
import perflab
bench = perflab.Benchmark("memory", compare="exact")
KEPT = []

@bench.case()
def N():
    return 1

@bench.contender
def transient(n):
    block = bytearray(1_000_000)   # 1 MB held during the call only
    return n

@bench.contender
def retaining(n):
    KEPT.append(bytearray(1000))   # 1 kB kept per call
    return n
"""


def test_memory_sees_transient_peaks_and_retained_bytes(bench_file):
    path = bench_file(MEMORY_BENCH)
    targets = [Target.of(str(path), "N", "transient"), Target.of(str(path), "N", "retaining")]
    uses = {u.contender: u for u in memory.measure(targets, loops=50)}
    transient, retaining = uses["transient"], uses["retaining"]
    assert transient.error is None and retaining.error is None
    assert transient.peak_traced >= 1_000_000
    assert abs(transient.retained_per_call) < 100
    assert 1000 <= retaining.retained_per_call < 1500
    assert transient.peak_rss > 5_000_000 and transient.rss_growth >= 0


def test_disagreement_is_flagged_when_time_and_instructions_tell_different_stories(bench_file):
    """Equal instruction counts but a contender that sleeps: its time ratio is far beyond 2x."""
    path = bench_file(WORK_BENCH)
    result = run_benchmark(
        str(path),
        load_benchmark(path),
        ["DOC"],
        ["once", "twice", "sleepy"],
        Settings(precision=0.5, max_time=10, values=5, value_time=0.002, min_rounds=2),
    )
    counts = [
        instructions.InstructionCount("DOC", name, 100, [value, value])
        for name, value in (("once", 60000.0), ("twice", 120000.0), ("sleepy", 60500.0))
    ]
    flagged = instructions.disagreements(result, counts)
    assert [d.contender for d in flagged] == ["sleepy"]
    assert flagged[0].instruction_ratio == pytest.approx(60500 / 60000)
    assert flagged[0].time_ratio > 2 and flagged[0].factor > 2
    assert not math.isnan(flagged[0].factor)
