"""The hash-seed check names the hash seed only when the seed is the cause: a cache keyed by
id() that mixes cases up in one process is state kept between calls."""

from perflab.measure.equivalence import check_case, check_hash_seed
from perflab.measure.launcher import run_job
from perflab.measure.sides import contender_sides
from perflab.results.model import NOT_EQUIVALENT

ID_CACHE = """
import perflab

bench = perflab.Benchmark("totals")

@bench.case
def FIRST():
    return [1, 2, 3, 4]

@bench.case
def SECOND():
    return [10, 20, 30, 40]

@bench.contender
def ref(xs):
    return sum(xs)

_by_id = {}

@bench.contender
def by_id(xs):
    if id(xs) not in _by_id:
        _by_id[id(xs)] = sum(xs)
    return _by_id[id(xs)]
"""


def test_state_across_cases_is_not_blamed_on_the_hash_seed(bench_file):
    path = bench_file(ID_CACHE)
    sides = contender_sides(str(path), ["ref", "by_id"])
    run = lambda job, side, seed: run_job(job, 60, side.python, seed)
    outputs, verdicts = {}, []
    for case in ("FIRST", "SECOND"):
        verdicts += check_case(case, sides, run, outputs)[0]
    check_hash_seed(sides, outputs, verdicts, run)
    flagged = [v for v in verdicts if v.contender == "by_id" and v.status == NOT_EQUIVALENT]
    assert flagged, verdicts
    assert "hash seed" not in flagged[0].difference
    assert "depends on what ran before it in the same process" in flagged[0].difference
