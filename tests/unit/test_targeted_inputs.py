"""perflab.bench.worker.declared_domain, code_constants and boundary_values on their own, and the
exception contract of perflab.bench.worker.integrity: the general mechanisms behind issue 39."""

import math

from perflab.bench.worker import boundary_values, code_constants, integrity
from perflab.bench.worker.declared_domain import Domain


class PortError(ValueError):
    """A contract of the user's own code: callers write ``except PortError``."""


class StrictPortError(PortError):
    pass


def test_a_base_class_or_a_sibling_of_the_references_own_exception_is_a_difference():
    """Old code: ValueError and PortError are related (one subclasses the other), so equivalent."""
    assert "does not catch" in integrity.error_difference(PortError("80808"), ValueError("80808"), "same")
    sibling = type("OtherError", (ValueError,), {"__module__": __name__})
    assert "does not catch" in integrity.error_difference(PortError("x"), sibling("x"), "same")
    assert integrity.error_difference(PortError("x"), StrictPortError("x"), "same") is None  # caught by its handler
    assert integrity.error_difference(PortError("x"), ValueError("x"), "any") is None
    # A built-in exception with a more general one: a handler of the reference's misses it too.
    assert "does not catch" in integrity.error_difference(
        UnicodeDecodeError("utf-8", b"x", 0, 1, "r"), ValueError(), "same"
    )
    assert integrity.error_difference(KeyError("k"), IndexError("i"), "same") is None  # built-in siblings: related


def test_the_domain_holds_the_declared_types_emptiness_specials_and_magnitudes():
    domain = Domain([[3, 1, 4], [7, 7]])
    assert domain.outside([2, 9, 100]) is None
    assert "None" in domain.outside([1, None])
    assert "a str" in domain.outside([1, "?"])
    assert "empty list" in domain.outside([])
    assert "far past" in domain.outside([1, 2**63 - 1])
    assert Domain([[3, 1, 4]], named_bound=2**64).outside([1, 2**63]) is None  # the reference names 2**64
    floats = Domain([[1.5, 2.0]])
    assert "nan" in floats.outside([math.nan]) and floats.outside([1e300, -0.0]) is None
    assert Domain([[1.5, math.nan, -math.inf], []]).outside([math.inf]) is None
    assert "inf" in Domain([[1.5, math.nan]]).outside([math.inf])  # NaN declared, infinities not
    times = Domain([[1, 5, 9], [2, 3]])
    assert "out of order" in times.outside([5, 1, 9]) and times.outside([0, 2, 4]) is None
    assert Domain([[1, 5, 9], [3, 2]]).outside([5, 1, 9]) is None  # a declared sequence out of order
    grown = Domain([["a"]])
    grown.add([None, ""])  # what a strategy drew
    assert grown.outside([None]) is None


def test_the_domain_judges_emptiness_by_kind_records_by_length_and_a_strategys_integers_by_its_range():
    cells = Domain([[(0, 0), (17, 42)], []])
    assert "empty tuple" in cells.outside([()]) and cells.outside([]) is None  # only lists are ever empty
    assert "a tuple of 3 items" in cells.outside([(1, 2, 3)])
    assert Domain([[(1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (5,) * 5]]).outside([(1,) * 9]) is None  # sequences
    drawn = Domain([[(0, 4999)]])
    assert drawn.outside([(0, 5000)]) is None  # the declared cases alone: magnitudes only
    drawn.drawn = True
    assert "outside the integers the strategy draws (0 to 4999)" in drawn.outside([(0, 5000)])
    assert "outside" in drawn.outside([(-1, 0)]) and drawn.outside([(4999, 0)]) is None


def _split_fields(text):
    return text.split(";")


def test_constants_are_mined_from_the_code_folded_and_from_the_functions_it_calls():
    def reference(xs):
        """A docstring is not a constant."""
        return [x % (1 << 64) for x in xs if x > 1000], _split_fields("a"), 0.25

    found = code_constants.mined(reference)
    assert {1000, 2**64} <= set(found.integers) and 0.25 in found.floats
    assert ";" in found.texts and "a" in found.texts and reference.__doc__ not in found.texts
    assert found.largest_integer() == 2**64


def test_inputs_around_a_constant_put_it_in_place_of_items_and_between_two_of_them():
    constants = code_constants.Constants(integers=[60], texts=["T"])
    made = code_constants.around([500, 10, 0], constants)
    assert [500, 560, 0] in made and [500, 10, 561] in made  # an item exactly 60 (and 61) past the first
    assert [500, 10, 60] in made and [59, 10, 0] in made  # the constant and its neighbours in place of an item
    assert [0, 10, 60] in code_constants.around([0, 10, 500], constants)  # a sorted input stays sorted
    texts = code_constants.around("12:30", constants)
    assert "12T:30" in texts and "61:30" in texts


def test_boundary_values_go_first_last_and_everywhere_and_text_gets_other_digits_and_spaces():
    with_nan = Domain([[1.0, math.nan]])
    made = boundary_values.boundaries([1.0, 2.0, 3.0], with_nan)
    assert any(math.isnan(m[0]) and m[1:] == [2.0, 3.0] for m in made)
    assert any(math.isnan(m[-1]) and m[:-1] == [1.0, 2.0] for m in made)
    assert any(all(math.isnan(x) for x in m) for m in made)
    assert not any(any(math.isnan(x) for x in m) for m in boundary_values.boundaries([1.0, 2.0], Domain([[1.0]])))
    # A strategy of floats without NaN (infinities allowed) never gets NaN: median.py's partial_heap
    infinite = boundary_values.boundaries([1.0, 2.0], Domain([[math.inf]]))
    assert [math.inf, 2.0] in infinite and not any(math.isnan(x) for m in infinite for x in m)
    assert [None, 2] in boundary_values.boundaries([1, 2], Domain([[1, None]]))
    text = boundary_values.boundaries("12 kg", Domain(["1 kg"]))
    assert "\u0661\u0032 kg" in text and "\u00b22 kg" in text  # ARABIC-INDIC DIGIT ONE, SUPERSCRIPT TWO
    assert "12\u00a0kg" in text and "\u300012 kg\u3000" in text and "1\u03012 kg" in text
    assert boundary_values.other_kinds((1, 2)) == []


def test_a_list_as_a_one_shot_iterator_is_consumed_once_and_copied_afresh():
    import copy
    import pickle

    as_tuple, once = boundary_values.other_kinds([1, 2])
    assert as_tuple == (1, 2) and repr(once) == "iter([1, 2])"
    copied = copy.deepcopy(once)
    assert list(once) == [1, 2] and list(once) == []  # one pass, as a generator
    assert list(copied) == [1, 2]  # each call's copy starts at the first item
    assert pickle.dumps(once) == pickle.dumps(copied)  # consumed is not changed, for the mutation check


LIMIT = 1000
SEPARATORS = frozenset(";|")


def test_compared_values_come_first_named_ones_next_then_the_codes_literals():
    def reference(rows, width=12):
        total = sum(len(row) * 37 for row in rows)  # 37 is a literal, never compared
        return total > LIMIT and any(c in SEPARATORS for row in rows for c in row) and width

    found = code_constants.mined(reference)
    assert found.integers.index(LIMIT) < found.integers.index(12) < found.integers.index(37)
    assert set(found.texts) == {";", "|"} and found.compared == 3


def test_a_pure_python_function_of_another_module_is_looked_into_but_not_the_standard_librarys():
    import statistics
    import types

    helpers = types.ModuleType("helpers_of_a_benchmark")
    exec("def threshold(x):\n    return x > 4242\n", vars(helpers))

    def reference(xs):
        return [helpers.threshold(x) for x in xs], statistics.fmean(xs)

    integers = code_constants.mined(reference).integers
    assert 4242 in integers and len(integers) <= 3  # statistics' own constants are not taken


def test_values_compared_at_run_time_are_kept_where_they_stay_the_same_across_inputs():
    def reference(xs, minutes=45):
        limit = minutes * 60 + 7
        best = xs[0]
        for x in xs:
            if x > limit or x < best:
                best = x
        return best

    constants = code_constants.mined(reference)
    assert 2707 not in constants.integers
    calls = [(reference, [5, 3, 9]), (reference, [100, 2]), (reference, [])]  # the last one raises
    seen = code_constants.compared_at_run_time(constants, calls)
    assert seen == [2707]  # best, which follows the input, is not kept
    widened = code_constants.with_compared(constants, seen)
    assert widened.integers[0] == 2707 and widened.compared == 1


def test_inputs_around_a_constant_reach_the_fields_of_record_items():
    constants = code_constants.Constants(integers=[60])
    made = code_constants.around([(0, "a"), (10, "b")], constants)
    assert [(0, "a"), (60, "a")] in made and [(0, "a"), (61, "a")] in made  # a field 60 past the first's
    assert [(59, "a"), (10, "b")] in made
    assert {"t": 61, "k": "x"} in code_constants.around({"t": 5, "k": "x"}, constants)


def test_a_packing_formulas_collision_and_a_length_the_code_names_are_built():
    constants = code_constants.Constants(integers=[1000])
    made = code_constants.around([(3, 7), (10, 20)], constants)
    assert [(3, 7), (4, -993)] in made and [(3, 7), (2, 1007)] in made  # 3 * 1000 + 7 == 2 * 1000 + 1007
    assert {len(m) for m in made} >= {999, 1000, 1001}  # the declared items repeated to that length


def test_recording_comparisons_stops_within_its_event_budget_and_restores_the_trace_function():
    import sys

    def reference(n, limit=77):
        hits = 0
        for i in range(n):  # far more bytecode than the tracing budget
            hits += i % 1000 > limit
        return hits

    before = sys.gettrace()
    seen = code_constants.compared_at_run_time(code_constants.mined(reference), [(reference, 10**6), (reference, 5)])
    assert seen == [77] and sys.gettrace() is before


def test_records_get_a_partner_whose_fields_joined_without_a_separator_give_the_same_text():
    made = code_constants.around([(1, 23), (5, 5)], code_constants.Constants())
    assert [(1, 23), (12, 3)] in made
    assert [("ab", "c"), ("a", "bc")] in code_constants.around([("ab", "c"), ("x", "y")], code_constants.Constants())
    plain = code_constants.Constants()
    assert not any((1, 3) in m for m in code_constants.around([(10, 3), (5, 5)], plain))  # "1" and "03" is not it


def test_an_installed_librarys_functions_are_not_looked_into():
    from hypothesis.strategies import integers

    def reference(xs):
        return integers(0, 2)  # pure Python, under site-packages

    found = code_constants.mined(reference)
    assert found.integers == [2, 0] and list(found.codes) == [reference.__code__]  # nor traced
