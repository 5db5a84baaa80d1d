"""The domain a benchmark declares: a difference outside it (None, another type, an empty input,
integers far past the declared ones) is reported beside the verdict, not as NOT EQUIVALENT; inside
it nothing is weaker. Real worker processes, real Hypothesis, real NumPy."""

import pytest
from support.fuzz_shared import fuzz

from perflab.measure.difference_search import fuzz_sides
from perflab.measure.sides import contender_sides
from perflab.results.model import EQUIVALENT, NOT_EQUIVALENT

pytest.importorskip("numpy")

SCORES = """
import numpy
import perflab

bench = perflab.Benchmark("scores")

@bench.case
def SMALL():
    return [3, 1, 4, 1, 5, 9, 2, 6]

@bench.case
def FEW():
    return [7, 7, 8]

@bench.contender
def ref(xs):
    return sum(xs) / len(xs)

@bench.contender
def numpy_mean(xs):
    "int64 and nan on empty: correct on the declared inputs, different past them"
    return float(numpy.asarray(xs, dtype=numpy.int64).sum()) / len(xs) if xs else float("nan")

@bench.contender
def drops_last(xs):
    return sum(xs[:-1]) / len(xs) if len(xs) > 3 else sum(xs) / len(xs)
"""

READINGS = """
import math
import numpy
import perflab

def close(expected, actual):
    return math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-9)

bench = perflab.Benchmark("readings", compare=close)

@bench.case
def DAY():
    return [1.5, 2.25, 3.0]

@bench.strategy
def readings(st):
    return st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=20)

@bench.contender
def ref(xs):
    return sum(xs) / len(xs)

@bench.contender
def numpy_mean(xs):
    "nan for [None]: the strategy never draws None"
    return float(numpy.mean(numpy.asarray(xs, dtype=float)))
"""


def test_a_numpy_rewrite_differing_only_outside_the_declared_cases_stays_equivalent(bench_file):
    """Old code: NOT EQUIVALENT at [-2**63, ...] (int64 wraps) or on [] (nan where the reference raises)."""
    path = bench_file(SCORES)
    found = fuzz(path, "numpy_mean", examples=100)
    assert found.status == EQUIVALENT, (found.difference, found.counterexample)
    assert found.outside_differences >= 1
    assert "to count it, declare" in found.outside and "counterexample:" in found.outside
    assert "list" in found.domain and "none empty" in found.domain
    [verdict] = fuzz_sides(contender_sides(str(path), ["ref", "numpy_mean"]), 120, examples=100)
    assert "a difference outside the declared inputs" in verdict.note
    assert verdict.evidence["outside_differences"] >= 1


def test_inside_the_declared_domain_a_difference_is_still_not_equivalent(bench_file):
    found = fuzz(bench_file(SCORES), "drops_last", examples=100)
    assert found.status == NOT_EQUIVALENT


def test_with_a_strategy_the_strategy_is_the_domain(bench_file):
    """Old code: NOT EQUIVALENT on the near-misses [None] and [] (the reference raises, NumPy gives nan)."""
    found = fuzz(bench_file(READINGS), "numpy_mean", examples=100)
    assert found.status == EQUIVALENT, (found.difference, found.counterexample)
    assert found.outside_differences >= 1 and "let @bench.strategy draw such inputs" in found.outside
    assert found.domain.startswith("what @bench.strategy draws")
