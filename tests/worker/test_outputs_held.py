"""An output compared right after its call can still change later: fuzzing holds earlier outputs
and compares them again after later calls, and two outputs sharing memory share state."""

import sys

import pytest

from perflab.measure.difference_search import fuzz_contender
from perflab.measure.launcher import run_job
from perflab.results.model import EQUIVALENT, NOT_EQUIVALENT

pytest.importorskip("numpy")

RUNNING_TOTALS = """
import numpy
import perflab

bench = perflab.Benchmark("running_totals")

@bench.case
def SHORT():
    return [1.0, 2.0, 3.0]

@bench.case
def LONGER():
    return [5.0, 1.0, 4.0, 2.0, 8.0]

@bench.contender
def ref(values):
    return numpy.cumsum(numpy.asarray(values, dtype=float))

_buffer = numpy.empty(1 << 16)

@bench.contender
def into_buffer(values):
    out = _buffer[: len(values)]
    numpy.cumsum(numpy.asarray(values, dtype=float), out=out)
    return out

@bench.contender
def control_copy(values):
    out = _buffer[: len(values)]
    numpy.cumsum(numpy.asarray(values, dtype=float), out=out)
    return out.copy()
"""


def fuzz(path, contender):
    return fuzz_contender(path, contender, "ref", lambda job: run_job(job, 120, sys.executable), examples=0)


def test_a_view_into_a_buffer_the_next_call_overwrites_is_caught(bench_file):
    found = fuzz(bench_file(RUNNING_TOTALS), "into_buffer")
    assert found.status == NOT_EQUIVALENT, found
    assert found.pattern == "overwritten"
    assert "the output of an earlier call changed after" in found.difference


def test_a_copy_out_of_the_buffer_is_equivalent(bench_file):
    assert fuzz(bench_file(RUNNING_TOTALS), "control_copy").status == EQUIVALENT
