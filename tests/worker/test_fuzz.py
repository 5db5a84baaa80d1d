"""Equivalence fuzzing end to end: real worker processes, real Hypothesis, small benchmark files."""

import subprocess
import sys

import pytest
from support.fuzz_shared import STRINGS, fuzz

from perflab.measure.launcher import run_job

CACHES = """
import functools
import json
import perflab

bench = perflab.Benchmark("caches", compare="json")

@bench.case
def ORDER():
    return {"id": 981, "items": [1, 2], "note": "Zoë"}

@bench.contender
def ref(obj):
    return json.dumps(obj)

_by_id = {}

@bench.contender
def id_cache(obj):
    if id(obj) not in _by_id:
        _by_id[id(obj)] = json.dumps(obj)
    return _by_id[id(obj)]

@bench.contender
def rounds_floats(obj):
    return json.dumps(obj if not isinstance(obj, float) else float("%.6g" % obj))

@bench.contender
def fine(obj):
    return json.dumps(obj, separators=(",", ":"))

@bench.contender
def crashes_on_lists(obj):
    if isinstance(obj, list):
        raise ValueError("lists are not supported")
    return json.dumps(obj)

@bench.contender(setup=True)
def not_installed():
    import no_such_module_xyz
"""

JSON_INPUTS = """
@bench.strategy  # JSON-like values, lists among them (inputs derived from ORDER would all be dicts)
def inputs(st):
    from perflab.bench.worker.fuzz import json_values
    return json_values(st, allow_nan=False)
"""


def test_a_correct_contender_is_equivalent_and_the_run_is_reproducible(bench_file):
    path = bench_file(CACHES)
    first, second = fuzz(path, "fine"), fuzz(path, "fine")
    assert first.status == "equivalent", first
    assert first.examples_run >= 50 and first.calls > 0  # the 50 generated, and inputs aimed at the constants
    assert first == second


def test_a_cache_keyed_by_id_is_caught_when_the_object_is_mutated(bench_file):
    result = fuzz(bench_file(CACHES), "id_cache")
    assert result.status == "not equivalent"
    assert (
        result.pattern == "mutated"
        and result.caught_by == "the input changed in place by perflab between calls (as a caller may)"
    )
    assert result.counterexample.startswith("case ORDER, first 1 items: {'id': 981}")  # cut to one key
    assert "replaced ['id'] with 980" in result.difference


def test_a_generated_difference_is_shrunk_to_a_small_counterexample(bench_file):
    result = fuzz(bench_file(CACHES + JSON_INPUTS), "rounds_floats", examples=200)
    assert result.status == "not equivalent" and result.pattern is None
    assert result.caught_by == "generated inputs"
    assert len(result.counterexample) <= 12, result.counterexample  # e.g. 1000001.0
    assert float(result.counterexample) != float(f"{float(result.counterexample):.6g}")


DEDUPE = """
import perflab

bench = perflab.Benchmark("dedupe")

@bench.case
def LARGE():
    return [i % 50 for i in range(200)]  # sorted(set(xs)) is right on this one

@bench.contender
def ref(xs):
    return list(dict.fromkeys(xs))

@bench.contender
def set_sorted(xs):
    return sorted(set(xs))
"""


@pytest.mark.parametrize("seed", range(3))
def test_a_difference_found_on_a_large_input_is_cut_to_a_small_counterexample(bench_file, seed):
    # the first failure is often a declared input at full size (200 items), which Hypothesis does not
    # shrink out of: the counterexample shown is cut while it still fails, to two items out of order
    result = fuzz(bench_file(DEDUPE), "set_sorted", examples=100, seed=seed)
    assert result.status == "not equivalent" and result.caught_by == "generated inputs", result
    items = eval(result.counterexample)
    assert len(items) == 2 and items[0] > items[1], result.counterexample
    assert result.difference == f"at [0]: reference {items[0]}, contender {items[1]}"


def test_the_inputs_drawn_do_not_depend_on_which_of_perflabs_modules_are_imported(bench_file):
    """Hypothesis draws some values from the constants of modules it takes for the user's: perflab
    installed editable is one, and a worker that stopped importing two of its modules once found
    nothing where it had found the difference (CI). The same fuzz, with and without them imported."""
    extra = "import perflab.bench.asv_suite, perflab.bench.pyperf_script, perflab.bench.native_build\n"
    plain = fuzz(bench_file(CACHES + JSON_INPUTS), "rounds_floats", examples=200)
    importing = fuzz(bench_file(extra + CACHES + JSON_INPUTS), "rounds_floats", examples=200)
    assert plain.status == importing.status == "not equivalent"
    assert (plain.counterexample, plain.examples_run) == (importing.counterexample, importing.examples_run)


def test_a_contender_that_raises_where_the_reference_does_not_is_not_equivalent(bench_file):
    result = fuzz(bench_file(CACHES + JSON_INPUTS), "crashes_on_lists")
    assert result.status == "not equivalent"
    assert result.counterexample == "[]"
    assert "the contender raised ValueError: lists are not supported" in result.difference


def test_a_contender_that_is_not_installed_is_skipped(bench_file):
    result = fuzz(bench_file(CACHES), "not_installed")
    assert result.status == "skipped" and "no_such_module_xyz" in result.difference


def test_an_id_memo_on_immutable_inputs_is_caught_by_id_reuse(bench_file):
    result = fuzz(bench_file(STRINGS), "id_memo")
    assert result.status == "not equivalent" and result.pattern == "id-reuse"
    assert "this copy got the id of an earlier argument" in result.difference
    assert any("pattern 'mutated' skipped" in note and "str" in note for note in result.notes)


def test_patterns_can_run_one_at_a_time(bench_file):
    path = bench_file(STRINGS)
    assert fuzz(path, "id_memo", examples=0, patterns=["id-reuse"]).pattern == "id-reuse"
    alone = fuzz(path, "id_memo", examples=0, patterns=["mutated", "interleaved"])
    assert alone.status == "equivalent" and alone.examples_run == 0
    with pytest.raises(ValueError, match="unknown fuzzing pattern"):
        fuzz(path, "id_memo", patterns=["nope"])


def test_state_kept_between_calls_is_named_as_such(bench_file):
    result = fuzz(bench_file(STRINGS), "counter_kept")
    assert result.status == "not equivalent" and result.pattern == "state"
    assert "state kept between calls" in result.caught_by


def test_calls_in_turn_catch_a_cache_keyed_by_too_little(bench_file):
    # Without generated inputs, only the stateful patterns on the declared cases run.
    path = bench_file("""
        import perflab
        bench = perflab.Benchmark("last")

        @bench.case
        def AB():
            return ("a", "b")

        @bench.case
        def CD():
            return ("c", "d")

        @bench.contender
        def ref(pair):
            return "".join(pair)

        last = {}

        @bench.contender
        def last_by_length(pair):
            if last.get("key") != len(pair):
                last.update(key=len(pair), value="".join(pair))
            return last["value"]
    """)
    result = fuzz(path, "last_by_length", examples=0)
    assert result.status == "not equivalent"
    assert result.pattern == "in-turn" and result.counterexample == "case CD, first 1 items: ('c',)"
    assert result.examples_run == 0


def test_a_generated_difference_that_does_not_reproduce_is_reported_as_state(bench_file):
    result = fuzz(bench_file(STRINGS), "tenth_call_wrong")
    assert result.status == "not equivalent" and result.pattern == "state"
    assert result.difference.endswith("(not reproducible on its own: depends on earlier calls)")


def test_interleaving_is_what_catches_state_that_only_the_second_input_sees(bench_file):
    path = bench_file("""
        import perflab
        bench = perflab.Benchmark("interleaved", fuzz=False)

        @bench.case
        def AB():
            return ("a", "b")

        @bench.case
        def CD():
            return ("c", "d")

        @bench.contender
        def ref(pair):
            return "".join(pair)

        seen = []

        @bench.contender
        def remembers(pair):
            seen.append(pair)
            switched = len(seen) > 2 and seen[-2] != pair  # right until inputs alternate
            return "".join(pair) + ("?" if switched else "")
    """)
    result = fuzz(path, "remembers")
    assert result.status == "not equivalent" and result.pattern == "interleaved", result
    assert result.notes[0] == "generated inputs skipped: the benchmark declares fuzz=False"
    assert result.counterexample == "x = case AB, first 1 items: ('a',); y = case CD, first 1 items: ('c',)"


def test_a_reference_that_rejects_nearly_every_generated_input_says_so_with_a_note(bench_file):
    path = bench_file("""
        import perflab
        bench = perflab.Benchmark("abc_only", errors="ignore")  # the contender accepts more: not asked here

        @bench.case
        def DATA():
            return b"abc"

        @bench.contender
        def ref(data):
            return data.hex() if data == b"abc" else data.no_such_attribute

        @bench.contender
        def other(data):
            return data.hex()
    """)
    result = fuzz(path, "other")
    assert result.status == "equivalent"
    # Hypothesis finds b"abc" itself now and then (inputs derived from the case are bytes):
    # then a warning with the count, else the note that every input was rejected.
    assert any(
        ("the reference raised on every one of them" in note or "warning: under half" in note)
        and "@bench.strategy" in note
        for note in result.notes
    ), result.notes


@pytest.mark.parametrize(
    "strategy, message",
    [
        ("return 1 / 0", "strategy 'inputs' raised ZeroDivisionError: division by zero"),
        ("return [1, 2]", "strategy 'inputs' returned list, expected a Hypothesis strategy"),
        ("return st.builds(lambda: 1 / 0)", "the input strategy raised while generating: ZeroDivisionError"),
        ("return st.integers(min_value=5, max_value=1)", "the input strategy raised while generating: InvalidArgument"),
    ],
)
def test_a_strategy_that_fails_is_a_one_line_error_naming_the_file(bench_file, strategy, message):
    path = bench_file(CACHES + f"\n@bench.strategy\ndef inputs(st):\n    {strategy}\n")
    result = fuzz(path, "fine")
    assert result.status == "error"
    assert str(path) in result.difference and message in result.difference
    assert "\n" not in result.difference
    outcome = run_job(
        {"mode": "fuzz", "file": str(path), "contender": "fine", "reference": "ref", "examples": 10, "seed": 0}, 60
    )
    assert outcome.of("error")[0]["kind"] == "strategy"


def test_declaring_a_strategy_does_not_import_hypothesis(bench_file):
    path = bench_file(STRINGS)
    code = (
        "import sys; from perflab.bench.loading import load_benchmark; b = load_benchmark(sys.argv[1]); "
        "assert b.input_strategy.__name__ == 'titles'; assert 'hypothesis' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)


ONE_SIDED_PAIRS = """
import perflab

bench = perflab.Benchmark("same_name", description="caseless equality of two names")

@bench.case
def NAMES():
    return ("Ada", "ADA")

@bench.strategy
def with_upper_case(st):  # builds (name, its upper case) only: the special letter is always first
    return st.text(alphabet="ab\\u00df", max_size=6).map(lambda name: (name, name.upper()))

@bench.contender
def ref(pair):
    return pair[0].casefold() == pair[1].casefold()

@bench.contender
def first_ascii_fast_path(pair):  # decided on the first name only: ("SS", "\\u00df") takes it
    if pair[0].isascii():
        return pair[0].lower() == pair[1].lower()
    return ref(pair)
"""


def test_a_pair_built_in_one_order_is_also_tried_in_the_other(bench_file):
    result = fuzz(bench_file(ONE_SIDED_PAIRS), "first_ascii_fast_path", examples=100)
    assert result.status == "not equivalent", result
    first, second = eval(result.counterexample)
    assert first.isascii() and not second.isascii(), result.counterexample


RECORDED_CALLS = """
import re
import perflab

bench = perflab.Benchmark("tokenize", description="calls recorded as (args, kwargs), as perflab isolate writes them")

@bench.case
def CALLS():
    return [(("The quick brown fox 42 jumps",), {}), (("over the lazy dog",), {})]

WORD = re.compile(r"[A-Za-z]+")

def tokenize(line):
    return [w.lower() for w in WORD.findall(line)]

@bench.contender
def ref(calls):
    return [tokenize(*args, **kwargs) for args, kwargs in calls]

@bench.contender
def ignores_keywords(calls):  # correct: the recorded calls have none
    return [tokenize(line) for (line,), _ in calls]

_IGNORING_CASE = re.compile(r"[a-z]+", re.IGNORECASE)

@bench.contender
def ignorecase(calls):  # wrong: with IGNORECASE, [a-z] also matches the Kelvin sign, long s, dotless i
    return [[w.lower() for w in _IGNORING_CASE.findall(line)] for (line,), _ in calls]
"""


def test_recorded_calls_keep_their_shape_and_letters_that_case_mapping_gets_wrong_are_tried(bench_file):
    """(args, kwargs) is generated as a tuple of a tuple and a dict, not as a list of merged types
    whose (args, ()) the reference rejected and a contender ignoring keywords accepted; and text
    made of the declared text's characters holds the letters whose case mapping enters ASCII."""
    path = bench_file(RECORDED_CALLS)
    assert fuzz(path, "ignores_keywords", examples=100).status == "equivalent"
    found = fuzz(path, "ignorecase", examples=100)
    assert found.status == "not equivalent", found
    assert any(letter in found.counterexample for letter in "\u212a\u017f\u0131\u0130"), found.counterexample


ARRAY_MEANS = """
import numpy
import perflab

bench = perflab.Benchmark("means", description="mean of a float64 array, no strategy declared")

@bench.case
def READINGS():
    return numpy.linspace(0.0, 1.0, 1000)

@bench.contender
def ref(xs):
    return float(numpy.mean(xs))  # takes lists too

@bench.contender
def method(xs):  # correct: an array method, which a list does not have
    return float(xs.mean())

@bench.contender
def in_float32(xs):  # wrong: single precision
    return float(xs.astype(numpy.float32).mean())
"""


def test_a_declared_array_gives_generated_arrays_of_its_dtype(bench_file):
    """Inputs derived from a NumPy array are arrays: as JSON-like lists, the correct contender
    calling xs.mean() raised where the reference did not, and was flagged."""
    pytest.importorskip("numpy")
    path = bench_file(ARRAY_MEANS)
    assert fuzz(path, "method", examples=100).status == "equivalent"
    found = fuzz(path, "in_float32", examples=100)
    assert found.status == "not equivalent" and found.counterexample.startswith("array("), found
