"""Issue 12 through the real command line: the five ways a contender fooled the equivalence
checks are flagged with a one-line explanation and their speedups struck out; correct
optimizations (controls) are not. Example files: tests/equivalence_examples/ and, shared with
benchmarks/broken_optimizations.py and benchmarks/repeat_only_cautions.py, benchmarks/broken/ and
benchmarks/repeat_only/."""

import re

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.paths import ROOT, TESTS

EXAMPLES = TESTS / "equivalence_examples"
BROKEN = ROOT / "benchmarks" / "broken"
REPEAT_ONLY = ROOT / "benchmarks" / "repeat_only"
# Enough rounds for the first-call caution (3 processes per side); loose precision ends them.
SHORT = [
    "--precision",
    "50",
    "--max-time",
    "30",
    "--values",
    "5",
    "--value-time",
    "0.002",
    "--timeout",
    "60",
    "--no-store",
]


@pytest.fixture(scope="module")
def compare(tmp_path_factory):
    """``compare(name)``: perflab compare of an example file, its process, results and Markdown.
    Run once per example in this module: tests that check different things about one run share it
    (each call reads the results afresh, so a test may change what it gets)."""
    runs = {}

    def compared(name):
        if name not in runs:
            folder = tmp_path_factory.mktemp(name)
            json_path, markdown_path = folder / "result.json", folder / "result.md"
            path = next(f / f"{name}.py" for f in (EXAMPLES, BROKEN, REPEAT_ONLY) if (f / f"{name}.py").exists())
            process = run_perflab(
                "compare", path, *SHORT, "--json", json_path, "--markdown", markdown_path, timeout=300
            )
            runs[name] = process, json_path, markdown_path
        process, json_path, markdown_path = runs[name]
        return process, load_json(json_path), markdown_path.read_text()

    return compared


def words(text):
    """Terminal output with rich's line wrapping undone."""
    return " ".join(text.split())


def status(result, case, contender):
    return next(e for e in result["equivalence"] if e["case"] == case and e["contender"] == contender)


def comparison(result, contender):
    return next(c for c in result["comparisons"] if c["contender"] == contender)


@pytest.mark.parametrize(
    "name, case, contender, expected, explanation",
    [
        (
            "median",
            "FLOATS",
            "sort_in_place",
            "mutates input",
            "the contender changed its input, which the reference leaves unchanged",
        ),
        ("divisor_lists", "N360", "lru_list", "shares output", "returned the same list object"),
        (
            "wrong_after_many_calls",
            "NUMBERS",
            "drifting",
            "not equivalent",
            "in timing (round 0): after its timed calls, its output differs from the reference's",
        ),
        ("reference_sorts_in_place", "FLOATS", "first", "not equivalent", ", contender "),
    ],
)
def test_a_broken_contender_is_flagged_and_its_speedup_struck_out(
    compare, name, case, contender, expected, explanation
):
    process, result, markdown = compare(name)
    assert process.returncode == 1, process.stderr
    verdict = status(result, case, contender)
    assert verdict["status"] == expected and explanation in verdict["difference"], verdict
    assert comparison(result, contender)["valid"] is False
    said = words(process.stdout)
    line = said[said.index(f"{expected.upper()} {case}/{contender}: ") :]
    assert explanation in line.split(" (its speedup is not a valid result)")[0], line
    assert f"invalid ({expected})" in process.stdout
    row = next(line for line in markdown.splitlines() if line.startswith(f"| {case} | {contender} |"))
    assert re.search(r"~~[\d.,]+x (faster|slower) \[", row) and f"**invalid** ({expected})" in row
    assert result["schema"] == "perflab.results/2"
    controls = [e for e in result["equivalence"] if e["contender"] in ("median_high", "partial_heap")]
    assert all(e["status"] == "equivalent" for e in controls), controls


def test_a_reference_that_sorts_its_input_is_reported_and_invalidates_the_case(compare):
    process, result, _ = compare("reference_sorts_in_place")
    reference = status(result, "FLOATS", "sort_then_first")
    assert reference["status"] == "mutates input"
    assert "mutates_input=True" in reference["difference"]
    # The contender got its own unsorted copy: xs[0] is not the smallest, whatever the reference did.
    assert status(result, "FLOATS", "first")["difference"].startswith("reference ")


def test_a_memo_cache_keeps_its_status_but_its_speedup_is_struck_out_with_a_note(compare):
    process, result, markdown = compare("content_memo")
    assert process.returncode == 0, process.stderr
    assert status(result, "WORDS", "memoized")["status"] == "equivalent"
    found = comparison(result, "memoized")
    assert found["valid"] is True and found["caution"].startswith("repeat-only speed"), found
    assert "repeat-only WORDS/memoized: repeat-only speed" in words(process.stdout)
    row = next(line for line in markdown.splitlines() if line.startswith("| WORDS | memoized |"))
    assert re.search(r"~~[\d.,]+x faster \[", row) and "**repeat-only**" in row


def test_at_a_one_second_budget_a_memo_speedup_is_never_passed_off_as_checked(tmp_path):
    """--max-time 1 bounds every phase: fuzzing either finishes within the second and says what it
    exercised, or is stopped and says so, never "equivalent". Of the memo cache's speedup, whatever
    the loaded machine timed in a second, the run says either nothing (not timed), repeat-only
    (judged), or unchecked (too few processes to judge)."""
    json_path = tmp_path / "result.json"
    process = run_perflab("run", REPEAT_ONLY / "content_memo.py", *QUICK, "--max-time", "1", "--json", json_path)
    said = words(process.stdout + process.stderr)
    result = load_json(json_path)
    fuzzed = status(result, "fuzzing", "memoized")
    if fuzzed["status"] == "equivalent":
        evidence, kinds = fuzzed["evidence"], fuzzed["evidence"]["generated_kinds"]
        assert sum(kinds.values()) == evidence["generated_inputs"] > 0, fuzzed
        assert f"equivalent on {evidence['generated_inputs'] + evidence['stateful_calls']} inputs" in said
    else:  # the budget stopped the fuzzing: a failure said as such, no evidence, nothing called equivalent
        assert fuzzed["evidence"] is None and process.returncode != 0, fuzzed
        assert "stopped while fuzzing" in said and "equivalent on" not in said, said
    memo = [c for c in result["comparisons"] if c["contender"] == "memoized"]
    if not memo:  # not timed within the second: said, with what the budget stopped
        assert re.search(r"WORDS/memoized: (not timed|stopped while)", said), said
    elif memo[0]["caution"] is None:
        assert (memo[0]["unchecked"] or "").startswith("not checked for repeat-only speed"), memo
        assert "unchecked WORDS/memoized: not checked for repeat-only speed" in said
    else:
        assert memo[0]["unchecked"] is None and "repeat-only WORDS/memoized" in said


@pytest.mark.parametrize("name", ["divisor_tuples", "sort_in_place"])
def test_correct_optimizations_are_not_flagged(compare, name):
    process, result, _ = compare(name)
    assert process.returncode == 0, process.stdout + process.stderr
    assert {e["status"] for e in result["equivalence"]} <= {"equivalent", "reference"}, result["equivalence"]
    assert all(c["valid"] for c in result["comparisons"])
    runs = [run for cell in result["cells"] for run in cell["runs"]]
    assert all(run["input_changed"] is None and run["output_wrong"] is None for run in runs)
    # A worker the budget stopped while it set up (under load) reported no floor: not what this checks.
    set_up = [run for run in runs if run["floor"] is not None]
    assert set_up and all(run["floor"] > 0 and run["first_call"] > 0 for run in set_up), runs
    assert all(run["error"] for run in runs if run["floor"] is None), runs


def test_a_version_1_results_file_is_still_read(compare):
    from perflab.results.model import RunResult

    _, result, _ = compare("divisor_lists")
    result["schema"] = "perflab.results/1"
    for name in ("equivalence_seconds",):
        result.pop(name)
    for cell in result["cells"]:
        for run in cell["runs"]:
            for field in ("input_changed", "output_wrong", "floor", "first_call"):
                run.pop(field)
    for found in result["comparisons"]:
        found.pop("caution")
    loaded = RunResult.from_json(result)
    assert loaded.schema == "perflab.results/2"
    assert loaded.equivalence_of("N360", "lru_list").status == "shares output"


LATE_MUTATION = """
import perflab
bench = perflab.Benchmark("late")

@bench.case
def NUMBERS():
    return list(range(100))

@bench.contender
def total(xs):
    return sum(xs)

_calls = [0]

@bench.contender
def total_then_overwrite(xs):
    _calls[0] += 1
    result = sum(xs)
    if _calls[0] > 2:      # the declared-case check makes two calls: only timing sees this
        xs[0] = -1
    return result

@bench.contender(setup=True)
def builtin_len():
    return len
"""


def test_timing_catches_a_mutation_the_check_did_not_see_and_flags_the_floor(bench_file, tmp_path):
    out = tmp_path / "r.json"
    process = run_perflab("run", bench_file(LATE_MUTATION), *SHORT, "--json", out, timeout=300)
    assert process.returncode == 1, process.stderr
    result = load_json(out)
    verdict = status(result, "NUMBERS", "total_then_overwrite")
    assert verdict["status"] == "mutates input", verdict
    assert verdict["difference"].startswith("in timing (round 0): its input changed during the timed calls")
    assert any(
        run["input_changed"]
        for run in next(c for c in result["cells"] if c["contender"] == "total_then_overwrite")["runs"]
    )
    assert comparison(result, "total_then_overwrite")["valid"] is False
    # len() costs about what perflab's loop around type() costs: that ratio is mostly the harness.
    assert "floor NUMBERS/builtin_len: harness floor" in words(process.stdout)


def test_the_new_statuses_survive_the_store_and_reach_the_html_report(tmp_path):
    database, report, exported = tmp_path / "perflab.db", tmp_path / "report.html", tmp_path / "out"
    options = [option for option in SHORT if option != "--no-store"]
    process = run_perflab(
        "compare",
        BROKEN / "divisor_lists.py",
        *options,
        "--db",
        database,
        "--html",
        report,
        "--no-profile",
        timeout=300,
    )
    assert process.returncode == 1, process.stderr
    html = report.read_text()
    # The verdict in its own colour, the ratio beside it struck out.
    assert "<td class='invalid'>invalid (shares output)</td>" in html and "SHARES OUTPUT" in html
    assert re.search(r"<td class='struck'>[\d.,]+x (faster|slower) \[", html)
    assert run_perflab("export", exported, "--db", database).returncode == 0
    (stored,) = [load_json(path) for path in exported.rglob("*.json")]
    assert status(stored, "N360", "lru_list")["status"] == "shares output"
    assert comparison(stored, "lru_list")["valid"] is False
