"""Plain objects (no ``==``, no ``repr`` of their own) compared and written by their attributes."""

from __future__ import annotations

import enum
import io

from perflab.bench.comparators import ExactComparator, first_difference
from perflab.bench.plain_objects import attributes, written


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a  # b left unset


class Color(enum.Enum):
    RED, BLUE = 1, 2


class Node:
    def __init__(self, value):
        self.value, self.next, self.previous = value, None, None


def linked(values):
    nodes = [Node(v) for v in values]
    for left, right in zip(nodes, nodes[1:]):
        left.next, right.previous = right, left
    return nodes[0]


def test_equal_plain_objects_are_equivalent_and_a_difference_names_the_attribute():
    assert ExactComparator().check(Point(1.0, 2.0), Point(1.0, 2.0)).equivalent
    assert first_difference([Point(1.0, 2.0)], [Point(1.0, 2.5)]) == "at [0].y: reference 2.0, contender 2.5"
    assert first_difference(Point(1, 2), Point(1.0, 2)) == "at .x: type: reference int 1, contender float 1.0"


def test_an_attribute_on_one_side_only_is_named():
    extra = Point(1, 2)
    extra.z = 3
    assert first_difference(Point(1, 2), extra) == "attribute 'z': in the contender's, not in the reference's"
    assert first_difference(extra, Point(1, 2)) == "attribute 'z': in the reference's, missing from the contender's"


def test_slots_are_attributes_and_unset_ones_are_left_out():
    assert attributes(Slotted(1)) == {"a": 1}
    assert first_difference(Slotted(1), Slotted(1)) is None
    assert first_difference(Slotted(1), Slotted(2)) == "at .a: reference 1, contender 2"


def test_objects_that_hold_each_other_are_compared_once():
    assert first_difference(linked([1, 2, 3]), linked([1, 2, 3])) is None
    assert first_difference(linked([1, 2, 3]), linked([1, 2, 4])) == "at .next.next.value: reference 3, contender 4"
    assert written(linked([1, 2]), 200) == "Node(value=1, next=Node(value=2, next=None, previous=...), previous=None)"


def test_objects_without_attributes_say_what_to_return_instead():
    difference = first_difference((x for x in [1]), (x for x in [1]))
    assert difference is not None and difference.endswith(
        "(objects compared by identity: return a value, or pass compare= a function)"
    )
    assert attributes(io.StringIO("a")) is None  # a C type's state is not its attributes
    assert first_difference(Color.RED, Color.BLUE) == "reference <Color.RED: 1>, contender <Color.BLUE: 2>"


def test_plain_objects_are_written_by_their_attributes_at_any_depth():
    assert written(Point(1, "a"), 100) == "Point(x=1, y='a')"
    assert written({"p": [Point(1, 2), (Point(3, 4),)]}, 100) == "{'p': [Point(x=1, y=2), (Point(x=3, y=4),)]}"
    assert written(Point(1, 2), 8) == "Point(x=..."
    assert written([1, 2], 100) == "[1, 2]" and written({1}, 100) == "{1}"  # other values: their repr
