"""Fresh corpus: the bounding box of 2-D points, returned as an object of a plain class (no ``==``,
no repr: two equal boxes were never equal, so even the reference's outputs from two processes
"differed"; they are compared by their attributes). Two "optimizations" that read the same on the
declared points, which span zero and have one point with both minima: a box grown from (0, 0)
instead of the first point, and the y range read from the points sorted by x; a control that
unzips the points and calls min and max (on no points it raises another exception than the
reference's ValueError: on an empty collection any exception is the same behaviour). Inputs are
derived from the declared points (no strategy)."""

import perflab

bench = perflab.Benchmark("bounding_box", description="Bounding box of 2-D points")


class Box:
    def __init__(self, low_x, low_y, high_x, high_y):
        self.low_x, self.low_y, self.high_x, self.high_y = low_x, low_y, high_x, high_y


@bench.case
def POINTS():
    return [(-1.0, -2.0), (3.0, 4.0), (0.5, 1.5), (2.0, -0.5)]


@bench.contender(reference=True)
def loop(points):
    """one pass from the first point"""
    if not points:
        raise ValueError("no points")
    (low_x, low_y), (high_x, high_y) = points[0], points[0]
    for x, y in points[1:]:
        low_x, low_y, high_x, high_y = min(low_x, x), min(low_y, y), max(high_x, x), max(high_y, y)
    return Box(low_x, low_y, high_x, high_y)


@bench.contender
def from_origin(points):
    """starts from 0.0 to skip the first-point unpacking: wrong when every point is on one side of zero"""
    if not points:
        raise ValueError("no points")
    low_x = low_y = high_x = high_y = 0.0
    for x, y in points:
        if x < low_x:
            low_x = x
        if x > high_x:
            high_x = x
        if y < low_y:
            low_y = y
        if y > high_y:
            high_y = y
    return Box(low_x, low_y, high_x, high_y)


@bench.contender
def sorted_once(points):
    """one sort by x gives both x bounds, and (wrongly) the y bounds of the same two points"""
    ordered = sorted(points)
    return Box(ordered[0][0], ordered[0][1], ordered[-1][0], ordered[-1][1])


@bench.contender
def unzipped(points):
    """control: unzip the points, then the built-in min and max of each axis"""
    xs, ys = zip(*points)
    return Box(min(xs), min(ys), max(xs), max(ys))
