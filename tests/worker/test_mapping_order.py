"""A dict built in set order is another output than the same dict in the reference's order."""

from perflab.measure.equivalence import check_case
from perflab.measure.launcher import run_job
from perflab.measure.sides import contender_sides
from perflab.results.model import EQUIVALENT, NOT_EQUIVALENT

WORD_LENGTHS = """
import perflab

bench = perflab.Benchmark("word_lengths")

@bench.case
def WORDS():
    return ["delta", "alpha", "charlie", "bravo", "delta", "echo"]

@bench.contender
def ordered(words):
    return {word: len(word) for word in dict.fromkeys(words)}

@bench.contender
def via_set(words):
    return {word: len(word) for word in set(words)}

@bench.contender
def control_loop(words):
    lengths = {}
    for word in words:
        lengths.setdefault(word, len(word))
    return lengths
"""


def test_a_dict_in_hash_order_is_not_equivalent_and_one_in_the_same_order_is(bench_file):
    path = bench_file(WORD_LENGTHS)
    sides = contender_sides(str(path), ["ordered", "via_set", "control_loop"])
    verdicts, _ = check_case("WORDS", sides, lambda job, side, seed: run_job(job, 60, side.python, seed))
    status = {verdict.contender: verdict for verdict in verdicts}
    assert status["via_set"].status == NOT_EQUIVALENT
    assert "another order" in status["via_set"].difference
    assert status["control_loop"].status == EQUIVALENT
