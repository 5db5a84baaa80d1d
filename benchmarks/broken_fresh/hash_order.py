"""Fresh corpus: outputs that follow set order. Small ints iterate a set in sorted order, so the
declared cases (sorted small ints) agree; other ints, or another first appearance, do not."""

import perflab

bench = perflab.Benchmark("hash_order", description="Count of each value, in order of first appearance")


@bench.case
def READINGS():
    return [1, 1, 2, 3, 3, 3, 5, 8]


@bench.contender(reference=True)
def first_appearance(values):
    """a dict filled in order of first appearance"""
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


@bench.contender
def via_set(values):
    """{v: values.count(v) for v in set(values)}: a dict in set order"""
    return {value: values.count(value) for value in set(values)}


@bench.contender
def distinct_then_count(values):
    """distinct values via a set, then counts in a list of pairs turned into a dict"""
    distinct = list(set(values))
    return dict(zip(distinct, [values.count(v) for v in distinct]))


@bench.contender
def counter(values):
    """control: collections.Counter (insertion ordered) over an iterator of the values, as a dict"""
    from collections import Counter

    return dict(Counter(iter(values)))


@bench.contender
def from_keys(values):
    """control: dict.fromkeys for the order, then counts"""
    counts = dict.fromkeys(values, 0)
    for value in values:
        counts[value] += 1
    return counts
