"""The build-to-build spread beside a comparison of built revisions: how it widens the CI gate's
threshold, and how every output says it (its measurement, two real builds A/A, is in
tests/external/test_builds.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from perflab.analysis import estimates, gate
from perflab.measure import build_noise, builds
from perflab.measure.settings import Settings
from perflab.measure.sides import Side
from perflab.measure.worktrees import RevisionError
from perflab.render.gate_summaries import build_spread as spread_line
from perflab.render.markdown import render_check, render_result
from perflab.results.model import CaseComparison, Cell, ProcessRun, RunResult
from perflab.results.quantities import BuildSpread, Interval

PLUS_3_PERCENT = BuildSpread("main", "K", Interval(1.0, 1 / 1.03, 1.01))  # farther bound: 1/0.971 -> ±3%
UNKNOWN = BuildSpread("main", "K", Interval(1.0, -math.inf, math.inf))


def paired_run(ratio: float, spread: BuildSpread | None = None, rounds: int = 20, seed: int = 0) -> RunResult:
    """A ``compare --rev main --rev WORKTREE`` of one case whose working tree is ``ratio`` times
    slower, values with 0.5% noise, as check's paired gate reads it."""
    rng = np.random.default_rng(seed)
    settings = {"precision": 0.01, "alpha": 0.05, "min_effect": 0.01, "max_time": 10.0}
    recorded = {"build_spread": spread.to_json() if spread else None, "machine": {"cpu_model": "test"}}
    run = RunResult("bench", "bench.py", "main", settings, recorded, {})
    run.sides = {name: {"contender": "spin"} for name in ("main", "WORKTREE")}
    for side, factor in (("main", 1.0), ("WORKTREE", ratio)):
        values = [list(1e-5 * factor * np.exp(rng.normal(0, 0.005, 5))) for _ in range(rounds)]
        run.cells.append(Cell("K", side, [ProcessRun(r + 1, 100, [], v) for r, v in enumerate(values)]))
    comparison = estimates.compare_paired(run.cells[0].round_values(), run.cells[1].round_values())
    run.comparisons = [CaseComparison("K", "WORKTREE", "main", comparison, comparison.p_value, "slower", True)]
    return run


def test_the_spread_and_the_threshold_combine_as_factors():
    assert gate.regression_threshold(0.05, PLUS_3_PERCENT) == pytest.approx(1.05 * 1.03 - 1)
    assert gate.regression_threshold(0.05, None) == 0.05
    assert gate.regression_threshold(0.05, UNKNOWN) == 0.05  # said unknown, widens nothing


def test_the_spread_is_the_farther_bound_either_way():
    assert PLUS_3_PERCENT.spread == pytest.approx(0.03)
    assert BuildSpread("main", "K", Interval(1.01, 1.005, 1.02)).spread == pytest.approx(0.02)
    assert math.isinf(UNKNOWN.spread)


def test_a_slowdown_inside_the_threshold_and_the_build_spread_is_not_a_regression():
    """1.07x slower, measured tightly: beyond a 5% threshold, but not beyond 5% and a ±3% build
    spread (1.0815x, shown 1.082x)."""
    assert paired_run(1.07).comparisons[0].comparison.ratio.low > 1.05  # the slowdown is clear
    assert [cell.verdict for cell in gate.check_paired([paired_run(1.07)]).cells] == [gate.REGRESSION]
    widened = gate.check_paired([paired_run(1.07, PLUS_3_PERCENT)])
    assert [cell.verdict for cell in widened.cells] == [gate.SLOWER_WITHIN_THRESHOLD]
    assert [cell.verdict for cell in gate.check_paired([paired_run(1.15, PLUS_3_PERCENT)]).cells] == [gate.REGRESSION]
    assert [cell.verdict for cell in gate.check_paired([paired_run(1.07, UNKNOWN)]).cells] == [gate.REGRESSION]


def test_every_output_says_the_spread_and_the_widened_threshold():
    checked = gate.check_paired([paired_run(1.07, PLUS_3_PERCENT)])
    line = spread_line(checked)
    assert line is not None
    assert line.startswith("build-to-build spread ±3.0% [measured on the base revision main, built twice: ")
    assert "(1 + threshold) × (1 + spread) = 1.05x × 1.03 = 1.082x" in line
    summary = render_check(checked, "bench", "main", "WORKTREE")
    assert "no regression (more than 1.082x slower)" in summary and "build-to-build spread ±3.0%" in summary
    assert checked.to_json("bench", "main", "WORKTREE")["build_spread"]["spread"] == pytest.approx(0.03)
    run = paired_run(1.07, PLUS_3_PERCENT)
    assert "build-to-build spread ±3.0%" in render_result(run)
    assert RunResult.from_json(run.to_json()).build_spread == PLUS_3_PERCENT
    assert run.to_json()["build_spread_shown"] == PLUS_3_PERCENT.shown
    assert UNKNOWN.shown.startswith("build-to-build spread unknown [the base revision main, built twice")


def test_a_kept_a_a_is_used_without_a_second_build_and_the_farthest_case_is_the_spread(tmp_path):
    """Every case's A/A kept with the base build: no build, no measurement (neither could run here)."""
    bench = tmp_path / "bench.py"
    bench.write_text("# the benchmark\n")
    base = builds.Environment("/nowhere/python", tmp_path / "entry", "tree", "make", 1.0, cached=True)
    side = Side("main", str(bench), "spin", base.python)
    kept_file = build_noise.kept_file(base.folder, side, Settings())
    kept_file.parent.mkdir(parents=True)
    kept = {"K": [1.0, 0.99, 1.01], "WIDE": [1.01, 0.98, 1.05], "OTHER": [1.2, 1.1, 1.3]}
    kept_file.write_text(json.dumps(kept))
    choice = builds.Choice(command="false")  # a build would fail
    spread = build_noise.measure(tmp_path, side, base, ["K", "WIDE"], Settings(), choice)
    assert spread == BuildSpread("main", "WIDE", Interval(1.01, 0.98, 1.05), cached=True)


def test_an_a_a_kept_at_other_timing_settings_is_measured_again(tmp_path):
    """An A/A of two quick rounds (±64%) was kept, and a later run at the defaults used it: its gate
    then called a regression only beyond 1.72x."""
    bench = tmp_path / "bench.py"
    bench.write_text("# the benchmark\n")
    base = builds.Environment("/nowhere/python", tmp_path / "entry", "tree", "make", 1.0, cached=True)
    side = Side("main", str(bench), "spin", base.python)
    quick = Settings(precision=0.5, values=5, value_time=0.002, max_rounds=2)
    kept_file = build_noise.kept_file(base.folder, side, quick)
    kept_file.parent.mkdir(parents=True)
    kept_file.write_text(json.dumps({"K": [1.04, 0.66, 1.64]}))
    again = build_noise.measure(tmp_path, side, base, ["K"], quick, builds.Choice(command="false"))
    assert again == BuildSpread("main", "K", Interval(1.04, 0.66, 1.64), cached=True)  # the same settings: kept
    with pytest.raises(RevisionError):  # it goes to build the base again (which cannot here) and measure
        build_noise.measure(tmp_path, side, base, ["K"], Settings(), builds.Choice(command="false"))


def test_the_terminal_and_the_html_pages_say_it_escaped():
    from rich.console import Console

    from perflab.render.html import gate_pages
    from perflab.render.terminal import results as terminal

    spread = BuildSpread("<b>main[/]", "K", Interval(1.0, 0.99, 1.01))
    console = Console(record=True, width=300)
    terminal.render(paired_run(1.07, spread), console)
    assert "build-to-build spread ±1.0% [measured on the base revision <b>main[/], built twice" in console.export_text()
    page = gate_pages.render_check(gate.check_paired([paired_run(1.07, spread)]), "bench", "main", "WORKTREE")
    assert "build-to-build spread ±1.0% [measured on the base revision &lt;b&gt;main[/], built twice" in page
