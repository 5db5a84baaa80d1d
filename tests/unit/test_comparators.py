import math

import pytest

from perflab.bench.comparators import (
    ExactComparator,
    FunctionComparator,
    JsonComparator,
    first_difference,
    resolve_comparator,
)


@pytest.mark.parametrize(
    "left, right", [(1, 1), ("a", "a"), ([1, {"a": 2.5}], [1, {"a": 2.5}]), (math.nan, math.nan), (b"x", b"x")]
)
def test_equal_values_have_no_difference(left, right):
    assert first_difference(left, right) is None


@pytest.mark.parametrize(
    "left, right, expected",
    [
        (1, 1.0, "type: reference int 1, contender float 1.0"),
        (True, 1, "type: reference bool True, contender int 1"),
        (0.0, -0.0, "reference 0.0, contender -0.0"),
        ({"a": [1, 2]}, {"a": [1, 3]}, "at ['a'][1]: reference 2, contender 3"),
        ({"a": 1}, {"b": 1}, "key 'a': in the reference's, missing from the contender's"),
        ({"a": 1}, {"a": 1, "b": 2}, "key 'b': in the contender's, not in the reference's"),
        ([1, 2], [1, 2, 3], "length: reference 2, contender 3"),
        ("abc", "abd", "first difference at index 2: reference 'abc', contender 'abd'"),
        ("hello world", "hello World", "first difference at index 6"),
    ],
)
def test_first_difference_says_where(left, right, expected):
    assert expected in first_difference(left, right)


def test_exact_is_type_strict():
    assert not ExactComparator().check("{}", b"{}").equivalent


def test_json_equivalent_with_a_note_on_bytes():
    outcome = JsonComparator().check('{"a": "\\u0105"}', '{"a":"ą"}'.encode())
    assert outcome.equivalent
    assert "bytes instead of str" in outcome.note
    assert "compact separators" in outcome.note
    assert "raw UTF-8" in outcome.note


def test_json_reports_the_first_parsed_difference():
    outcome = JsonComparator().check('{"a": [1, 2]}', '{"a": [1, 2.0]}')
    assert not outcome.equivalent
    assert "['a'][1]" in outcome.difference


def test_json_rejects_nan_spelled_differently():
    outcome = JsonComparator().check("[NaN]", "[nan]")
    assert not outcome.equivalent and "not valid JSON" in outcome.difference


def test_function_comparator_uses_the_message_of_an_assertion():
    def same_length(expected, actual):
        if len(expected) != len(actual):  # not `assert`: pytest would rewrite its message
            raise AssertionError(f"lengths {len(expected)} and {len(actual)}")
        return True

    outcome = FunctionComparator(same_length).check("ab", "abc")
    assert not outcome.equivalent and outcome.difference == "lengths 2 and 3"


def test_function_comparator_false_shows_the_first_difference():
    outcome = resolve_comparator(lambda a, b: False).check([1], [2])
    assert not outcome.equivalent and "reference 1, contender 2" in outcome.difference


def test_unknown_compare_spec_is_refused():
    with pytest.raises(ValueError, match="compare='fuzzy'"):
        resolve_comparator("fuzzy")


def test_a_mapping_in_another_key_order_is_a_different_value():
    from collections import OrderedDict

    difference = first_difference({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert difference is not None and "same keys in another order: key 0: reference 'a', contender 'b'" in difference
    assert first_difference([OrderedDict(x=1, y=2)], [OrderedDict(y=2, x=1)]) is not None
    assert not ExactComparator().check({"a": 1, "b": 2}, {"b": 2, "a": 1}).equivalent


def test_sets_and_json_objects_stay_order_free():
    assert first_difference({"b", "a", "c"}, {"c", "a", "b"}) is None
    assert JsonComparator().check('{"a": 1, "b": 2}', '{"b": 2, "a": 1}').equivalent
