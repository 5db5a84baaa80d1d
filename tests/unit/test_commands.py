"""Command contenders (perflab.bench.commands): real programs timed as processes, compared by output.

Every test runs real processes: a small C++ program compiled once per session
(tests/native/linecount.cpp), coreutils, /bin/sh.
"""

import pytest

from perflab.bench.commands import (
    CommandError,
    InnerMetric,
    ProgramComparator,
)
from perflab.bench.comparators import resolve_comparator


def test_program_comparator_compares_exit_status_then_outputs_with_the_declared_comparator():
    compare = ProgramComparator(resolve_comparator("json"))
    same = compare.check({"stdout": b'{"a": 1}', "exit_status": 0}, {"stdout": b'{"a":1}', "exit_status": 0})
    assert same.equivalent and same.note == "stdout: equal as JSON; bytes differ: compact separators"
    status = compare.check({"stdout": b"1", "exit_status": 0}, {"stdout": b"1", "exit_status": 2})
    assert status.difference == "exit status: reference 0, contender 2"
    files = compare.check(
        {"stdout": b"1", "exit_status": 0, "file:o": b"[1]"}, {"stdout": b"1", "exit_status": 0, "file:o": b"[2]"}
    )
    assert files.difference == "file:o: parsed values differ at [0]: reference 1, contender 2"
    lines = ProgramComparator(resolve_comparator("lines"))
    assert lines.check({"stdout": b"a\nb\n", "exit_status": 0}, {"stdout": b"b\na\n", "exit_status": 0}).equivalent
    assert not lines.check({"stdout": b"a\nb\n", "exit_status": 0}, {"stdout": b"a\na\n", "exit_status": 0}).equivalent


def test_inner_metric_reads_the_declared_number_and_says_when_it_is_missing():
    metric = InnerMetric(r"took ([0-9.]+) ms", unit="ms")
    assert metric.seconds(b"parsed\ntook 2.5 ms\n", b"") == pytest.approx(0.0025)
    with pytest.raises(CommandError, match="is not in the program's stdout"):
        metric.seconds(b"nothing", b"took 1 ms")
    with pytest.raises(ValueError, match="needs a group"):
        InnerMetric(r"took [0-9]+ ms")
    with pytest.raises(ValueError, match="unit 'h'"):
        InnerMetric(r"(1)", unit="h")
