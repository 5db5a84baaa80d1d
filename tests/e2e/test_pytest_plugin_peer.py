"""pytest-benchmark's own example tests (unchanged, from its sdist) under perflab's plugin, and
perflab's --benchmark-json next to the JSON pytest-benchmark itself writes for the same tests."""

import json
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from support.paths import TESTS
from support.pytest_runs import FAST, run_pytest

EXAMPLES = TESTS / "data" / "pytest_benchmark_examples"

# What does not pass, and why (docs/migrating.md says the same): these tests reach into
# pytest-benchmark's private internals or need aspectlib's weaving, which perflab does not offer.
# (Names as junit-xml writes them: module.Class::test.)
PRIVATE_TIMER = "test_calibration::test_calibrate_stuck"  # sets benchmark._timer, a private attribute
PRIVATE_PRECISION = "test_precision::"  # calls benchmark._run_until_precise
WEAVE = "test_with_testcase.TerribleTerribleWayToWritePatchTests::test_foo2"  # the benchmark_weave fixture


def _outcomes(junit: Path) -> dict[str, str]:
    outcomes = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        node = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[node] = kinds[0] if kinds else "passed"
    return outcomes


@pytest.fixture
def examples(tmp_path):
    for source in EXAMPLES.iterdir():
        if source.suffix in (".py", ".rst"):
            shutil.copy(source, tmp_path / source.name)
    return tmp_path


@pytest.mark.parametrize("mode", [["-p", "no:benchmark"], ["--perflab"]], ids=["alone", "taking-over"])
def test_pytest_benchmark_examples_run_unchanged(examples, mode):
    """perflab provides the fixture by itself (pytest-benchmark disabled), or takes it over from an
    installed pytest-benchmark (--perflab, its options then declared by pytest-benchmark)."""
    done = run_pytest(
        examples, *mode, *FAST, "--doctest-glob=*.rst", "--doctest-modules", "--junitxml", examples / "junit.xml"
    )
    outcomes = _outcomes(examples / "junit.xml")
    unexpected = {
        node: outcome
        for node, outcome in outcomes.items()
        if outcome != "passed"
        and not node.startswith((PRIVATE_TIMER, PRIVATE_PRECISION, WEAVE))
        and node != "test_skip::test_skip"
    }
    assert not unexpected, done.stdout[-3000:]
    passed = [node for node, outcome in outcomes.items() if outcome == "passed"]
    assert len(passed) >= 40, done.stdout[-3000:]
    for family in ("test_normal", "test_pedantic", "test_sample", "test_calibration::test_calibrate"):
        assert any(node.startswith(family) for node in passed), family
    assert outcomes["test_skip::test_skip"] == "skipped"  # pytest.skip inside the test, as intended
    assert outcomes[WEAVE] == "error"  # fixture 'benchmark_weave' not found
    assert (
        sum(
            node.startswith((PRIVATE_TIMER, PRIVATE_PRECISION)) and outcome == "failure"
            for node, outcome in outcomes.items()
        )
        == 33
    )
    assert "perflab benchmarks" in done.stdout


def test_benchmark_json_has_pytest_benchmarks_layout(tmp_path):
    """The same test under pytest-benchmark and under perflab: the JSON keys match."""
    (tmp_path / "test_one.py").write_text("def test_sorted(benchmark):\n    benchmark(sorted, [3, 1, 2])\n")
    theirs, ours = tmp_path / "theirs.json", tmp_path / "ours.json"
    run_pytest(tmp_path, "--benchmark-max-time", "0.05", "--benchmark-json", theirs, check=True)
    run_pytest(tmp_path, "--perflab", *FAST, "--benchmark-json", ours, check=True)
    their_data, our_data = json.loads(theirs.read_text()), json.loads(ours.read_text())
    assert set(their_data) <= set(our_data)
    their_bench, our_bench = their_data["benchmarks"][0], our_data["benchmarks"][0]
    assert set(their_bench) <= set(our_bench)
    assert set(their_bench["stats"]) <= set(our_bench["stats"])
    assert our_bench["name"] == their_bench["name"] == "test_sorted"
    assert our_bench["fullname"] == their_bench["fullname"]
    stats = our_bench["stats"]
    assert stats["rounds"] == len(stats["data"]) and stats["min"] <= stats["median"] <= stats["max"]
    interval = our_bench["perflab"]["median"]
    assert interval["low"] <= interval["value"] <= interval["high"]
    assert our_bench["perflab"]["timing"] == "in-process"
