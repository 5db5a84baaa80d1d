"""Independent corpus: the median response time of a batch. The reference takes any sequence
(callers pass tuples from database rows); the declared batches are lists."""

import perflab

bench = perflab.Benchmark("medians", description="The median of a batch of response times")


@bench.case
def BATCH():
    return [120.0, 85.5, 230.25, 99.0, 101.5]


@bench.case
def PAIR():
    return [10.0, 30.0]


@bench.contender(reference=True)
def by_sorting(times):
    """sorted(), then the middle item or the mean of the middle two"""
    ordered = sorted(times)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


@bench.contender
def copy_then_sort(times):
    """list.copy() and sort in place: a tuple has neither"""
    ordered = times.copy()
    ordered.sort()
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


@bench.contender
def list_concatenation(times):
    """pads odd batches with + [...]: a tuple cannot be concatenated with a list"""
    ordered = sorted(times) if len(times) % 2 == 0 else sorted(times + [max(times)])
    middle = len(ordered) // 2
    return ordered[middle - 1] if len(times) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


@bench.contender
def sorted_copy(times):
    """control: sorted() into a new list, as the reference"""
    ordered = sorted(times)
    half, odd = divmod(len(ordered), 2)
    return ordered[half] if odd else (ordered[half - 1] + ordered[half]) / 2
