"""Fresh corpus: the total of an order's lines, each a dataclass. Two "optimizations" that read
the same on the declared prices: integer cents by truncation (0.29 * 100 is 28.999999999999996)
and a quantity-one fast path that forgets a line's discount; a control that sums in cents with
rounding. Inputs are derived from the declared lines (no strategy): generated lines are made by
the dataclass's own constructor, which refuses a negative quantity."""

from dataclasses import dataclass

import perflab

bench = perflab.Benchmark("order_lines", description="Total of an order in cents")


@dataclass(frozen=True)
class Line:
    sku: str
    price: float
    quantity: int
    discount: float = 0.0

    def __post_init__(self):
        if self.quantity < 0:
            raise ValueError(f"negative quantity: {self.quantity}")


@bench.case
def ORDER():
    # amounts exact in binary, and a discount only on a line of several: both bugs are invisible here
    return [Line("tea", 4.5, 2), Line("mug", 12.25, 1), Line("spoon", 2.5, 4, 0.5)]


@bench.contender(reference=True)
def rounded_cents(lines):
    """each line's amount rounded to cents, then summed"""
    return sum(round(line.price * line.quantity * (1 - line.discount) * 100) for line in lines)


@bench.contender
def truncated_cents(lines):
    """int() instead of round(): truncates 28.999999999999996 to 28"""
    return sum(int(line.price * line.quantity * (1 - line.discount) * 100) for line in lines)


@bench.contender
def single_item_fast_path(lines):
    """a quantity of one skips the arithmetic, and the discount with it"""
    return sum(
        round(line.price * 100) if line.quantity == 1 else round(line.price * line.quantity * (1 - line.discount) * 100)
        for line in lines
    )


@bench.contender
def local_names(lines):
    """control: the same formula with the attribute lookups hoisted into locals"""
    total = 0
    for line in lines:
        price, quantity, discount = line.price, line.quantity, line.discount
        total += round(price * quantity * (1 - discount) * 100)
    return total
