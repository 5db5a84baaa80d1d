"""Independent corpus: how many distinct map cells a track visits. Cells are (column, row) pairs
of non-negative integers below 5000 (a strategy declares them); the declared tracks stay near the
origin, where every packing of the pair into one number is unique."""

import perflab

bench = perflab.Benchmark("grid_cells", description="Distinct (column, row) cells of a track")


@bench.case
def TRACK():
    return [(0, 0), (1, 0), (1, 1), (2, 1), (1, 1), (0, 0), (17, 42)]


@bench.strategy
def tracks(st):
    cell = st.tuples(st.integers(0, 4999), st.integers(0, 4999))
    return st.lists(cell, max_size=20)


@bench.contender(reference=True)
def distinct(track):
    """a set of the pairs"""
    return len(set(track))


@bench.contender
def packed_thousand(track):
    """column * 1000 + row as one int key: (1, 0) and (0, 1000) are one cell"""
    return len({column * 1000 + row for column, row in track})


@bench.contender
def packed_wide(track):
    """control: column * 5000 + row: unique for rows below 5000 (domain only: the strategy's bound)"""
    return len({column * 5000 + row for column, row in track})


@bench.contender
def packed_text(track):
    """a text key without a separator: (1, 23) and (12, 3) are one cell"""
    return len({f"{column}{row}" for column, row in track})
