"""Messages a user acts on (issue 25, part 7): bad input said before measuring and in one line, a
missing extra named with what to install, counts in the singular, interpreter sides with their
versions, and tables and marks that show only what means something."""

from __future__ import annotations

import sys

import pytest
from rich.console import Console
from support.store_results import synthetic_result

from perflab.cli import main
from perflab.measure import runner
from perflab.measure.ab_test import interpreter_labels
from perflab.measure.timing_verdicts import shown_floor
from perflab.render.terminal import results
from perflab.units import counted

BENCH = """
import perflab

bench = perflab.Benchmark("sorts")

@bench.case
def SMALL():
    return [3, 1, 2]

@bench.contender
def builtin(xs):
    return sorted(xs)
"""


@pytest.fixture
def measuring_forbidden(monkeypatch):
    """A tripwire: the refusals below must come before anything is measured."""

    def measured(*args, **kwargs):
        raise AssertionError("measured before refusing bad input")

    monkeypatch.setattr(runner, "run_benchmark", measured)


@pytest.mark.parametrize("kind", ["text file", "directory"])
def test_a_db_that_is_no_database_is_refused_before_measuring(tmp_path, bench_file, capsys, measuring_forbidden, kind):
    store = tmp_path / "notes.txt"
    if kind == "directory":
        store = tmp_path / "results"
        store.mkdir()
    else:
        store.write_text("my notes, not a database\n")
    assert main(["run", str(bench_file(BENCH)), "--db", str(store)]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"perflab: error: --db {store}: "), said
    if kind == "text file":
        assert store.read_text() == "my notes, not a database\n"  # left untouched


@pytest.mark.parametrize("verb", [["jobs"], ["worker"], ["submit", "json_dumps"]])
def test_the_queue_verbs_without_the_team_extra_say_what_to_install(monkeypatch, capsys, verb):
    monkeypatch.setitem(sys.modules, "procrastinate", None)  # as if not installed: import fails, find_spec is None
    assert main([*verb, "--db", "postgresql://nobody@127.0.0.1:1/none"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [
        f"perflab: error: perflab {verb[0]} needs the team queue, which is not installed (procrastinate "
        "missing): pip install 'perflab[team]'"
    ]


def test_counts_are_singular_for_one():
    assert [counted(1, "run"), counted(2, "run"), counted(1, "process", "processes")] == [
        "1 run",
        "2 runs",
        "1 process",
    ]
    assert counted(0, "round") == "0 rounds" and counted(12_000, "sample") == "12,000 samples"


def test_interpreter_sides_are_labelled_with_their_versions():
    assert interpreter_labels(["python3.11", "/usr/bin/python"], ["3.11.7", "3.13.1"]) == [
        "python3.11 (3.11.7)",
        "python (3.13.1)",
    ]
    # Two virtual environments' pythons of one version keep their paths apart.
    assert interpreter_labels(["a/bin/python", "b/bin/python"], ["3.12.4", "3.12.4"]) == [
        "a/bin/python (3.12.4)",
        "b/bin/python (3.12.4)",
    ]


def test_the_harness_floor_is_shown_only_where_it_matters():
    slow = synthetic_result(time=0.092).cells[0]  # a 92 ms command
    for run in slow.runs:
        run.floor = 7.4e-9
    assert shown_floor(slow) is None
    fast = synthetic_result(time=200e-9).cells[0]
    for run in fast.runs:
        run.floor = 7.4e-9
    assert shown_floor(fast) == pytest.approx(7.4e-9)


def terminal_text(result) -> str:
    console = Console(record=True, width=250)
    results.render(result, console)
    return console.export_text()


def table_rows(result) -> str:
    return "\n".join(line for line in terminal_text(result).splitlines() if line.startswith("│"))


def test_columns_empty_on_every_row_are_left_out():
    """A pyperf script: one contender, no declared work, so no throughput and no ratio."""
    header = next(line for line in terminal_text(synthetic_result()).splitlines() if "case" in line)
    assert "time/call" in header and "equivalence" in header
    assert "throughput" not in header and "vs base" not in header and "verdict" not in header


def test_the_mark_is_on_what_the_stopping_rule_watched():
    """Beside a reference, the rule watches ratios: a wide time is not marked '!' (it was on every
    row of a demo on a busy machine); a lone contender's time is what it watches."""
    from perflab.analysis import estimates
    from perflab.results.model import CaseComparison, Cell, Equivalence
    from perflab.results.quantities import Comparison, Interval

    result = synthetic_result(noise=0.5, seed=3)  # times far wider than the 1% target
    base = result.cells[0]
    assert base.estimates.median.relative_half_width > 0.01
    assert "!" in table_rows(result)  # alone: its time is watched
    other = Cell("SMALL", "other", runs=list(base.runs), estimates=base.estimates)
    result.cells.append(other)
    result.equivalence.append(Equivalence("SMALL", "other", "equivalent"))
    precise = Comparison(Interval(1.0, 0.998, 1.002), p_value=1.0, pairs=6, log_se=0.001)  # within the target
    result.comparisons.append(
        CaseComparison("SMALL", "other", "base", precise, 1.0, estimates.verdict(1.0, 1.0, 0.01, 0.01), valid=True)
    )
    assert "!" not in table_rows(result)


def test_contenders_with_the_same_note_share_one_line():
    """The demo's three JSON encoders carried the same fuzzing evidence, five lines each at 120
    columns; one line names them all. A different note, or other cases, keeps its own line."""
    from perflab.results.model import Cell, Equivalence

    result = synthetic_result()
    evidence, other = "equivalent on 120 inputs (25 generated), 0 rejected", "equal as JSON; bytes differ"
    for name in ("orjson", "ujson", "msgspec"):
        result.cells.append(Cell("SMALL", name))
        result.equivalence.append(Equivalence("fuzzing", name, "equivalent", note=evidence))
    result.equivalence.append(Equivalence("SMALL", "orjson", "equivalent", note=other))
    result.equivalence.append(Equivalence("SMALL", "msgspec", "equivalent", note=other))
    result.equivalence.append(Equivalence("LARGE", "ujson", "equivalent", note=other))
    notes = [line for line in terminal_text(result).splitlines() if line.startswith("note")]
    assert notes == [
        f"note orjson, ujson, msgspec [fuzzing]: {evidence}",
        f"note orjson, msgspec [SMALL]: {other}",
        f"note ujson [LARGE]: {other}",
    ]
