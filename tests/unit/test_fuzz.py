"""Equivalence fuzzing end to end: real worker processes, real Hypothesis, small benchmark files."""

import sys

import pytest
from support.fuzz_shared import STRINGS

from perflab.bench.loading import load_benchmark
from perflab.bench.spec import BenchmarkFileError
from perflab.bench.worker.contender_lines import LineRecorder
from perflab.bench.worker.copies import fresh_copy, variant


def test_a_second_strategy_is_a_file_error(bench_file):
    path = bench_file(STRINGS + "\n@bench.strategy\ndef again(st):\n    return st.text()\n")
    with pytest.raises(BenchmarkFileError, match=r"bench.py: a strategy is declared twice \(second: 'again'\)"):
        load_benchmark(path)


def test_fresh_copies_are_equal_but_distinct_and_variants_keep_type_and_size():
    for value in ["Zoë!", b"\x00\x01", ("ab", "cd"), {"a": [1, 2.5]}, [None, "x"]]:
        copied = fresh_copy(value)
        assert copied == value and copied is not value
        changed = variant(value)
        assert changed != value and type(changed) is type(value) and len(changed) == len(value)
    assert variant(None) is None and variant("") is None and variant({"a": None}) is None


def test_line_recording_stops_tracing_once_every_line_of_the_contender_has_run():
    """Tracing each call (sys.settrace, before Python 3.12) slows fuzzing; past full coverage it
    learns nothing more."""

    def contender(flag):
        if flag:
            return sys.gettrace()
        return sys.gettrace()

    outside = sys.gettrace()
    recorder = LineRecorder(contender)
    try:
        recorder(True)
        assert recorder.unrun() == [contender.__code__.co_firstlineno + 3]
        recorder(False)
        assert recorder.unrun() == []
        assert recorder(True) is outside  # called untraced from now on
    finally:
        recorder.stop()
