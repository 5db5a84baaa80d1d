"""Outputs that are plain objects (a class without ``==``) through the real checks, in worker
processes: equal attributes are the same output in one process and across two hash seeds."""

from perflab.measure.equivalence import check_case, check_hash_seed
from perflab.measure.launcher import run_job
from perflab.measure.sides import contender_sides
from perflab.results.model import EQUIVALENT, NOT_EQUIVALENT

CENTROID = """
import perflab

bench = perflab.Benchmark("centroid")

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

@bench.case
def SMALL():
    return [(1.0, 2.0), (3.0, 5.0)]

@bench.contender
def loop(pairs):
    return Point(sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs))

@bench.contender
def zipped(pairs):
    xs, ys = zip(*pairs)
    return Point(sum(xs) / len(xs), sum(ys) / len(ys))

@bench.contender
def swapped(pairs):
    xs, ys = zip(*pairs)
    return Point(sum(ys) / len(ys), sum(xs) / len(xs))
"""


def test_plain_objects_with_equal_attributes_are_the_same_output(bench_file):
    sides = contender_sides(str(bench_file(CENTROID)), ["loop", "zipped", "swapped"])
    run = lambda job, side, seed: run_job(job, 60, side.python, seed)
    outputs: dict = {}
    verdicts = check_case("SMALL", sides, run, outputs)[0]
    check_hash_seed(sides, outputs, verdicts, run)
    by_contender = {v.contender: v for v in verdicts}
    assert by_contender["zipped"].status == EQUIVALENT, by_contender["zipped"]
    assert not [v for v in verdicts if v.contender in ("loop", "zipped") and v.status == NOT_EQUIVALENT], verdicts
    assert by_contender["swapped"].status == NOT_EQUIVALENT
    assert by_contender["swapped"].difference == "at .x: reference 2.0, contender 3.5"
