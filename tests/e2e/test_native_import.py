"""``perflab import`` of native benchmark harnesses: Google Benchmark JSON made here by a real
program (tests/native/gbench_find.cpp, linked against Debian's libbenchmark-dev) and real
criterion.rs output captured from tests/native/criterion_find (tests/data/criterion/README.md)."""

import json

import pytest
from support.cli import run_perflab
from support.paths import TESTS

from perflab.results.files import load_file

CRITERION = TESTS / "data" / "criterion"


def test_criterion_samples_and_its_own_intervals_are_imported(tmp_path):
    result = load_file(CRITERION)
    assert result.benchmark == "find_byte"
    assert sorted((c.case, c.contender) for c in result.cells) == [
        ("1024", "naive"),
        ("1024", "rposition"),
        ("16384", "naive"),
        ("16384", "rposition"),
    ]
    cell = next(c for c in result.cells if (c.case, c.contender) == ("1024", "naive"))
    sample = json.loads((CRITERION / "find_byte/naive/1024/new/sample.json").read_text())
    assert cell.runs[0].values == pytest.approx([t * 1e-9 / i for t, i in zip(sample["times"], sample["iters"])])
    estimates = json.loads((CRITERION / "find_byte/naive/1024/new/estimates.json").read_text())["median"]
    assert cell.estimates.median.value == pytest.approx(estimates["point_estimate"] * 1e-9)
    assert cell.estimates.median.low == pytest.approx(estimates["confidence_interval"]["lower_bound"] * 1e-9)
    assert result.work["16384"] == ["B", 16384.0]
    done = run_perflab("import", CRITERION / "find_byte", "--db", tmp_path / "store.db")
    assert done.returncode == 0 and "stored as run 1 (find_byte)" in done.stderr
