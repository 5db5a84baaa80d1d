"""NumPy arrays as case inputs and outputs: compared by shape, dtype and values, seen as mutable."""

import pytest

from perflab.bench.comparators import first_difference
from perflab.measure.equivalence import check_case
from perflab.measure.launcher import run_job
from perflab.measure.sides import contender_sides
from perflab.results.model import EQUIVALENT, NOT_EQUIVALENT, REFERENCE, SHARES_OUTPUT

numpy = pytest.importorskip("numpy")

SCALE = """
import numpy
import perflab

bench = perflab.Benchmark("scale"{options})

@bench.case
def VALUES():
    return numpy.array([3.0, float("nan"), 1.0, 2.0])

@bench.contender
def reference(a):
    return a * 2.0

@bench.contender
def added(a):
    return a + a

@bench.contender
def single_precision(a):
    return (a * 2.0).astype(numpy.float32)

_buffer = numpy.empty(4)

@bench.contender
def into_buffer(a):
    numpy.multiply(a, 2.0, out=_buffer)
    return _buffer[:]
"""

NAMES = ["reference", "added", "single_precision", "into_buffer"]


def verdicts(bench_file, options=""):
    path = bench_file(SCALE.replace("{options}", options))
    sides = contender_sides(str(path), NAMES)
    found, _ = check_case("VALUES", sides, lambda job, side, seed: run_job(job, 60, side.python, seed))
    return {verdict.contender: verdict for verdict in found}


def test_array_inputs_and_outputs_are_checked_not_errors(bench_file):
    found = verdicts(bench_file)
    assert found["reference"].status == REFERENCE, found["reference"].difference
    assert found["added"].status == EQUIVALENT  # NaN at the same place is the same value
    assert found["single_precision"].status == NOT_EQUIVALENT
    assert "dtype: reference float64, contender float32" in found["single_precision"].difference
    assert found["into_buffer"].status == SHARES_OUTPUT
    assert "sharing memory" in found["into_buffer"].difference


def test_a_user_comparator_sees_array_inputs_too(bench_file):
    found = verdicts(bench_file, ", compare=lambda a, b: numpy.allclose(a, b, equal_nan=True)")
    assert found["reference"].status == REFERENCE, found["reference"].difference
    assert found["single_precision"].status == EQUIVALENT


def test_the_first_differing_element_is_named():
    difference = first_difference(numpy.array([[1, 2], [3, 4]]), numpy.array([[1, 2], [3, 5]]))
    assert difference is not None and "element [1, 1]" in difference and "(1 of 4 elements differ)" in difference
    assert "shape: reference (2,), contender (3,)" in first_difference(numpy.zeros(2), numpy.zeros(3))
