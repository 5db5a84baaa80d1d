"""A counterexample found by a stateful pattern on a large declared case is cut down to the
fewest items that still show the difference."""

import sys

from perflab.measure.difference_search import fuzz_contender
from perflab.measure.launcher import run_job
from perflab.results.model import NOT_EQUIVALENT

BY_LENGTH = """
import perflab

bench = perflab.Benchmark("totals", fuzz=False)

@bench.case
def BIG():
    return list(range(10_000))

@bench.contender
def ref(xs):
    return sum(xs)

_by_length = {}

@bench.contender
def by_length(xs):
    if len(xs) not in _by_length:
        _by_length[len(xs)] = sum(xs)
    return _by_length[len(xs)]
"""


def test_a_pattern_counterexample_is_cut_to_a_few_items(bench_file):
    found = fuzz_contender(
        bench_file(BY_LENGTH), "by_length", "ref", lambda job: run_job(job, 120, sys.executable), examples=0
    )
    assert found.status == NOT_EQUIVALENT and found.pattern == "mutated", found
    assert "case BIG, first 1 items: [0]" in found.counterexample
    assert len(found.counterexample) < 120, found.counterexample
