"""Independent corpus: rows split into batches of BATCH for a bulk insert. Callers pass lists,
tuples of rows from a database driver, and generators; the declared rows are lists."""

import itertools

import perflab

bench = perflab.Benchmark("batches", description="Rows in batches of 4")

BATCH = 4


@bench.case
def ROWS():
    return [["a", 1], ["b", 2], ["c", 3], ["d", 4], ["e", 5], ["f", 6]]


@bench.case
def FEW():
    return [["x", 0]]


@bench.contender(reference=True)
def islices(rows):
    """itertools.islice over one iterator: any iterable, lists of rows out"""
    source = iter(rows)
    batches = []
    while batch := list(itertools.islice(source, BATCH)):
        batches.append(batch)
    return batches


@bench.contender
def slices(rows):
    """slices of the input: a tuple of rows gives tuple batches"""
    return [rows[start : start + BATCH] for start in range(0, len(rows), BATCH)]


@bench.contender
def listed_slices(rows):
    """control: the rows as a list first, then slices"""
    rows = list(rows)
    return [rows[start : start + BATCH] for start in range(0, len(rows), BATCH)]


@bench.contender
def grouped_by_index(rows):
    """control: itertools.groupby on each row's position // BATCH"""
    numbered = enumerate(rows)
    return [[row for _, row in group] for _, group in itertools.groupby(numbered, lambda pair: pair[0] // BATCH)]
