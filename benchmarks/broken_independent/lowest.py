"""Independent corpus: the lowest price offered, where a missing offer is None. The declared
offers hold None in the middle only."""

import perflab

bench = perflab.Benchmark("lowest", description="The lowest offered price, None if there is none")


@bench.case
def OFFERS():
    return [12.5, None, 9.75, 11.0]


@bench.case
def FULL():
    return [3.0, 4.5]


@bench.contender(reference=True)
def filtered_min(prices):
    """min of the prices that are not None"""
    return min((price for price in prices if price is not None), default=None)


@bench.contender
def seeded_with_first(prices):
    """starts from the first price: None there compares with floats"""
    lowest = prices[0]
    for price in prices[1:]:
        if price is not None and price < lowest:
            lowest = price
    return lowest


@bench.contender
def filter_builtin(prices):
    """control: filter() then min with a default"""
    return min(filter(lambda price: price is not None, prices), default=None)
