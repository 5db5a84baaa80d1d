"""What "equivalent" rests on: inputs compared, the largest against the declared cases, rejected
inputs, and the contender's lines that no checked input executed."""

import textwrap

from perflab.measure.difference_search import fuzz_sides
from perflab.measure.sides import contender_sides
from perflab.results.model import EQUIVALENT, FUZZING_CASE

TOTALS = """
import perflab

bench = perflab.Benchmark("totals")

@bench.case
def SMALL():
    return [1, 2, 3, 4, 5]

@bench.contender
def ref(xs):
    return sum(xs)

@bench.contender
def chunked(xs):
    if len(xs) > 1_000_000:
        half = len(xs) // 2
        return sum(xs[:half]) + sum(xs[half:])
    return sum(xs)
"""


def test_an_equivalent_fuzzing_verdict_carries_its_evidence(bench_file):
    path = bench_file(TOTALS)
    [verdict] = fuzz_sides(contender_sides(str(path), ["ref", "chunked"]), 120, examples=50)
    assert (verdict.case, verdict.status) == (FUZZING_CASE, EQUIVALENT), verdict
    evidence = verdict.evidence
    assert evidence["generated_inputs"] > 0 and evidence["rejected_inputs"] > 0
    assert evidence["declared_largest"] == 5 and evidence["largest_input"] >= 5
    source = textwrap.dedent(TOTALS).splitlines()
    branch = [number for number, line in enumerate(source, 1) if "half" in line]
    assert evidence["unrun_lines"] == branch  # the large-input path never ran
    assert f"contender lines {branch[0]}-{branch[-1]} never ran" in verdict.note
    assert verdict.note.startswith("equivalent on ")
    # How each generated input was made, adding up to the count: what the word rests on.
    kinds = evidence["generated_kinds"]
    assert sum(kinds.values()) == evidence["generated_inputs"], kinds
    assert kinds["drawn"] and kinds["declared at full size"] and kinds["reordered"] and kinds["near-miss"], kinds
    assert f"({evidence['generated_inputs']} generated: {kinds['drawn']} drawn, " in verdict.note
