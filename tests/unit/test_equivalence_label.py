"""The equivalence column says what was checked: "equivalent" only where fuzzing agreed too."""

from perflab.results.model import DECLARED_ONLY, EQUIVALENT, ERROR, FUZZING_CASE, REFERENCE, Equivalence, RunResult


def result_with(*verdicts: Equivalence) -> RunResult:
    return RunResult("b", "b.py", "ref", {}, {}, {}, equivalence=[Equivalence("CASE", "ref", REFERENCE), *verdicts])


def test_equal_on_the_declared_cases_alone_is_not_called_equivalent():
    result = result_with(Equivalence("CASE", "fast", EQUIVALENT))
    assert result.equivalent("CASE", "fast")  # the speedup counts: nothing showed a difference
    assert result.equivalence_label("CASE", "fast") == DECLARED_ONLY == "equal on declared cases"


def test_fuzzing_that_did_not_run_does_not_make_it_equivalent():
    result = result_with(Equivalence("CASE", "fast", EQUIVALENT), Equivalence(FUZZING_CASE, "fast", ERROR, "boom"))
    assert result.equivalence_label("CASE", "fast") == DECLARED_ONLY


def test_fuzzed_and_equal_is_equivalent():
    result = result_with(Equivalence("CASE", "fast", EQUIVALENT), Equivalence(FUZZING_CASE, "fast", EQUIVALENT))
    assert result.equivalence_label("CASE", "fast") == EQUIVALENT
