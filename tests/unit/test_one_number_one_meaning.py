"""One number, one meaning: every output states the same verdict and the same numbers.

Random results (fixed seed; valid, invalid, repeat-only, undecided, no detectable difference,
infinite and asymmetric intervals, ratios from 1/5000 to 50) are rendered by the terminal,
Markdown, the HTML report, ``--json`` and the web's run page (through a real store); each output is
parsed back and must say, for every comparison, the verdict the results model decided and numbers
that round from the raw ones. A headline never names a struck-out contender fastest. The web's
comparison of two stored runs is parsed back the same way, over random pairs of runs: its verdicts
are those of the model, and each ratio it shows is the ratio of the medians it shows.
"""

from __future__ import annotations

import html
import io
import json
import math
import re
from dataclasses import asdict, dataclass

import numpy as np
import pytest
from rich.console import Console
from support.comparison_page import comparison_rows

from perflab.analysis import estimates
from perflab.render import markdown
from perflab.render.html import report as report_html
from perflab.render.terminal import results as terminal
from perflab.results.model import (
    EQUIVALENT,
    FUZZING_CASE,
    INVALID,
    REFERENCE,
    CaseComparison,
    Cell,
    Equivalence,
    ProcessRun,
    RunResult,
    json_numbers,
)
from perflab.results.quantities import CellEstimates, Comparison, Interval
from perflab.results.store import Store, location, run_uid
from perflab.results.verdicts import INVALID as INVALID_VERDICT
from perflab.results.verdicts import REPEAT_ONLY, VERDICTS
from perflab.units import format_ratio, format_times
from perflab.web import pages
from perflab.web.run_pair import compare_runs
from perflab.web.site import Links

RESULTS, CASES, CONTENDERS = 40, 3, 10  # 1,200 comparisons
SEED = 20251124
# The last displayed digit: 2 decimals below 10x, 3 significant digits above, whole numbers from
# 1,000x; times with 3 significant digits. Half of it, relative, is at most 0.5%.
ROUNDING = 0.0051

_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_FACTOR = r"([0-9][0-9,]*(?:\.[0-9]+)?)x"
_RATIO = re.compile(rf"^{_FACTOR} (faster|slower) \[(?:{_FACTOR}, {_FACTOR}|no interval)\]$")
_TIME = r"([0-9.]+) (ns|us|ms|s)"
_TIMES = re.compile(rf"^{_TIME} \[(?:{_TIME}, {_TIME}|no interval)\]$")


def _interval(rng: np.random.Generator, value: float) -> tuple[float, float]:
    """No interval (too few rounds), or one as lopsided as a log-scale widening makes it."""
    if rng.random() < 0.12:
        return -math.inf, math.inf
    below, above = rng.exponential(0.05), rng.exponential(0.05) * (8 if rng.random() < 0.2 else 1)
    return value * math.exp(-below), value * math.exp(above)


def random_result(rng: np.random.Generator, index: int) -> RunResult:
    result = RunResult(
        benchmark=f"bench{index}",
        file="b.py",
        reference="ref",
        settings={"alpha": 0.05, "min_effect": 0.01, "precision": 0.02, "max_time": 60.0},
        metadata={"machine": {"cpu_model": "cpu", "cpu_count": 2}, "python": {"version": "3.12.0"}},
        work={},
    )
    contenders = [f"c{k}" for k in range(CONTENDERS)]
    if rng.random() < 0.15:  # differs on generated inputs: invalid on every case
        result.equivalence.append(Equivalence(FUZZING_CASE, str(rng.choice(contenders)), INVALID[0], "at input 3"))
    for case in (f"case{k}" for k in range(CASES)):
        for name in ["ref", *contenders]:
            time = 10.0 ** rng.uniform(-8.5, 0.5)
            low, high = _interval(rng, time)
            runs = [ProcessRun(r + 1, 10, [], [time * (1 + 0.01 * r)]) for r in range(3)]
            median = Interval(time, low, high)
            cell = Cell(case, name, runs, estimates=CellEstimates(median, median, 3, 3, 0, 0))
            cell.target_reached = bool(rng.random() < 0.7)
            result.cells.append(cell)
            status = REFERENCE if name == "ref" else EQUIVALENT
            if name != "ref" and rng.random() < 0.15:
                status = str(rng.choice(INVALID))
            result.equivalence.append(Equivalence(case, name, status, "differs at [0]" if status in INVALID else None))
        for name in contenders:
            ratio = 10.0 ** rng.choice([rng.uniform(-3.7, 1.7), rng.uniform(-0.02, 0.02)])
            low, high = _interval(rng, ratio)
            p = float(rng.choice([rng.uniform(0, 0.01), rng.uniform(0, 1)]))
            caution = "repeat-only speed: a memo cache" if rng.random() < 0.1 else None
            result.comparisons.append(
                CaseComparison(
                    case,
                    name,
                    "ref",
                    Comparison(Interval(ratio, low, high), p, 6, 0.01),
                    p,
                    estimates.verdict(ratio, p, 0.05, 0.01),
                    valid=result.equivalent(case, name),
                    caution=caution,
                )
            )
    for name in contenders:
        mean = 10.0 ** rng.uniform(-2, 1)
        result.geometric_means[name] = Interval(mean, *_interval(rng, mean)) if rng.random() < 0.9 else None
    return result


@pytest.fixture(scope="module")
def results() -> list[RunResult]:
    rng = np.random.default_rng(SEED)
    return [random_result(rng, index) for index in range(RESULTS)]


@dataclass(frozen=True)
class Said:
    """What one output says about one comparison."""

    time: str  # the contender's time per call with its interval
    ratio: str
    verdict: str
    struck: bool | None = None  # None: the output has no way to say it (plain terminal text)


def _verdict_label(text: str) -> str:
    label = text.replace("*", "").split(" (")[0].strip()
    assert label in VERDICTS, text
    return label


def said_by_terminal(result: RunResult) -> dict[tuple[str, str], Said]:
    console = Console(file=io.StringIO(), width=320, color_system=None, force_terminal=False)
    terminal.render(result, console)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    # Columns by their headers: a column empty on every row is left out of the table.
    header = [c.strip() for c in next(line for line in lines if "time/call" in line).split("┃")]
    column = {name.split(" ")[0]: index for index, name in enumerate(header)}
    said, case = {}, ""
    for line in lines:
        cells = [c.strip() for c in line.split("│")]
        if len(cells) != len(header) or cells[column["contender"]] in ("contender", ""):
            continue
        case = cells[column["case"]] or case
        if "vs" in column and cells[column["vs"]]:
            said[case, cells[column["contender"]]] = Said(
                cells[column["time/call"]].removesuffix(" !"),
                cells[column["vs"]].removesuffix(" !"),
                _verdict_label(cells[column["verdict"]]),
            )
    return said


def said_by_markdown(summary: str) -> dict[tuple[str, str], Said]:
    said = {}
    for line in summary.splitlines():
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if len(cells) == 5 and cells[0].startswith("case") and cells[0] != "case" and cells[3]:
            ratio = cells[3].strip("~")
            said[cells[0], cells[1]] = Said(cells[2], ratio, _verdict_label(cells[4]), cells[3].startswith("~~"))
    return said


_ROW = re.compile(
    r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td class='(\w*)'>([^<]*)</td><td class='\w*'>([^<]*)</td>"
)


def said_by_html(page: str) -> dict[tuple[str, str], Said]:
    said = {}
    table = re.search(r"<table class='verdicts'>.*?</table>", page, re.S)
    assert table is not None
    for case, contender, time, css, ratio, verdict in _ROW.findall(table.group(0)):
        if ratio:
            said[case, contender] = Said(
                html.unescape(time), html.unescape(ratio), _verdict_label(html.unescape(verdict)), css == "struck"
            )
    return said


def said_by_json(result: RunResult) -> dict[tuple[str, str], Said]:
    """The display fields of ``--json``, which must be those of the raw numbers beside them."""
    data = json.loads(json.dumps(result.to_json()))
    medians = {(c["case"], c["contender"]): c["estimates"]["median"] for c in data["cells"]}
    said = {}
    for entry in data["comparisons"]:
        key = (entry["case"], entry["contender"])
        shown, raw = entry["shown"], entry["comparison"]["ratio"]
        assert shown["ratio"] == format_ratio(*(_read(raw[k]) for k in ("value", "low", "high")))
        time = format_times(*(_read(medians[key][k]) for k in ("value", "low", "high")))
        said[key] = Said(time, shown["ratio"], shown["verdict"], shown["struck"])
    return said


def _read(value: float | str) -> float:
    return float(value)  # JSON writes infinities as "inf" and "-inf", which float() reads


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def check_ratio(text: str, ratio: Interval) -> None:
    """``text`` is ratio's estimate and interval, as a factor of at least 1 and a direction."""
    found = _RATIO.match(text)
    assert found, text
    factor, direction, near, far = found.groups()
    faster = direction == "faster"
    assert faster == (ratio.value < 1)
    shown = 1 / _number(factor) if faster else _number(factor)
    assert shown == pytest.approx(ratio.value, rel=ROUNDING)
    if near is None:
        assert not (math.isfinite(ratio.low) and math.isfinite(ratio.high))
        return
    low, high = (1 / _number(far), 1 / _number(near)) if faster else (_number(near), _number(far))
    assert low == pytest.approx(ratio.low, rel=ROUNDING) and high == pytest.approx(ratio.high, rel=ROUNDING)


def check_times(text: str, median: Interval) -> None:
    found = _TIMES.match(text)
    assert found, text
    numbers = found.groups()
    assert _number(numbers[0]) * _UNITS[numbers[1]] == pytest.approx(median.value, rel=ROUNDING)
    if numbers[2] is None:
        assert not (math.isfinite(median.low) and math.isfinite(median.high))
        return
    assert _number(numbers[2]) * _UNITS[numbers[3]] == pytest.approx(median.low, rel=ROUNDING)
    assert _number(numbers[4]) * _UNITS[numbers[5]] == pytest.approx(median.high, rel=ROUNDING)


def test_every_output_states_the_same_verdict_and_numbers(results, tmp_path):
    with Store.open(location(str(tmp_path / "store.db"))) as store:
        stored = [store.save(result) for result in results]
        web_pages = [pages.run(Links(), store, [], run_id) for run_id in stored]
    seen: set[str] = set()
    for result, web_page in zip(results, web_pages):
        report = report_html.render([report_html.Section(result)], "t")
        summary = markdown.render_result(result)
        outputs = {
            "terminal": said_by_terminal(result),
            "markdown": said_by_markdown(summary),
            "html": said_by_html(report),
            "json": said_by_json(result),
            "web": said_by_html(web_page),
        }
        for comparison in result.comparisons:
            key = (comparison.case, comparison.contender)
            shown = result.shown(comparison)
            seen.add(shown.verdict)
            median = result.cell(*key).estimates.median  # type: ignore[union-attr]
            for output, said in outputs.items():
                where = f"{output}: {result.benchmark} {key}"
                assert said[key].verdict == shown.verdict, where
                assert said[key].ratio == shown.ratio, where
                assert said[key].struck in (None, shown.verdict in (INVALID_VERDICT, REPEAT_ONLY)), where
                check_ratio(said[key].ratio, comparison.comparison.ratio)
                check_times(said[key].time, median)
        for name in result.geometric_means:
            mean = result.mean_shown(name)
            if mean is not None:
                assert f"geometric mean over cases, {name} vs ref: {mean}" in report
                assert f"geometric mean over cases, `{name}`: {mean}" in summary
                assert (name in result.struck()) == ("does not count" in mean)
    assert seen == set(VERDICTS)  # every kind of verdict was drawn


def test_a_headline_never_names_a_struck_out_contender_fastest(results):
    named = 0
    for result in results:
        fastest = re.search(r"<strong>([^<]+)</strong> is fastest", report_html.headline(result))
        if fastest:
            named += 1
            assert fastest.group(1) not in result.struck()
    assert named  # some headline named one


def test_a_repeat_only_contender_is_struck_and_not_fastest_though_its_mean_is_best():
    """The demo's summary said "msgspec is fastest: x43.6" while its table struck msgspec out."""
    rng = np.random.default_rng(1)
    result = random_result(rng, 0)
    result.equivalence = [e for e in result.equivalence if e.status not in INVALID]
    for comparison in result.comparisons:
        comparison.valid, comparison.caution = True, "repeat-only speed" if comparison.contender == "c0" else None
    result.geometric_means = {"c0": Interval(1 / 43.6, 1 / 44, 1 / 43), "c1": Interval(0.5, 0.48, 0.52)}
    headline = report_html.headline(result)
    assert "<strong>c1</strong> is fastest: 2.00x faster [1.92x, 2.08x]" in headline
    assert "repeat-only: c0</span>" in headline
    assert result.mean_shown("c0") == "43.6x faster [43.0x, 44.0x] (includes repeat-only cases: it does not count)"


def test_how_a_run_is_worded_does_not_change_its_stored_id(results, tmp_path):
    """A run stored before the display fields existed is found again when its file is imported."""
    result = RunResult.from_json(json.loads(json.dumps(results[0].to_json())))  # as read from a --json file
    assert "shown" in results[0].to_json()["comparisons"][0]
    with Store.open(location(str(tmp_path / "store.db"))) as store:
        run_id = store.save(result)
        assert store.find(result) == run_id
        assert store.find_uid(run_uid(json_numbers(asdict(results[0])))) == run_id  # the fields alone


PAIRS = 30  # pairs of runs for the web comparison page: 240 comparisons


def random_run_pair(rng: np.random.Generator, index: int) -> tuple[RunResult, RunResult]:
    """Two runs of one benchmark at different times: per cell, processes of noisy values, some of
    them slowed by load; the later run's level a random ratio of the earlier's; one process only
    (no interval), cells measured in one run only, contenders not equivalent in one run."""
    runs = []
    for _ in range(2):
        result = RunResult(f"pair{index}", "b.py", "ref", {}, {}, {})
        result.metadata["git"] = {"commit": f"{len(runs)}" * 40, "branch": "main", "dirty": False}
        runs.append(result)
    for case in ("case0", "case1"):
        for name in ("ref", "c0", "c1", "c2"):
            time, ratio = 10.0 ** rng.uniform(-8, 0), 10.0 ** rng.choice([rng.uniform(-1, 1), rng.uniform(-0.01, 0.01)])
            for result, level in zip(runs, (time, time * ratio)):
                if rng.random() < 0.05:
                    continue  # not measured in this run
                cell = Cell(case, name)
                processes = 1 if rng.random() < 0.1 else int(rng.integers(2, 9))
                for r in range(processes):
                    load = 1.7 if rng.random() < 0.2 else 1.0
                    values = level * load * np.exp(rng.normal(0, rng.uniform(0.001, 0.1), 5))
                    cell.runs.append(ProcessRun(r + 1, 10, [], list(values)))
                cell.estimates = estimates.estimate_cell(cell.process_values())
                result.cells.append(cell)
                status = REFERENCE if name == "ref" else EQUIVALENT if rng.random() < 0.85 else str(rng.choice(INVALID))
                result.equivalence.append(Equivalence(case, name, status))
    return runs[0], runs[1]


def test_the_web_comparison_page_states_the_model_and_the_ratio_of_what_it_shows(tmp_path):
    rng = np.random.default_rng(SEED)
    seen, rows = set(), 0
    with Store.open(location(str(tmp_path / "store.db"))) as store:
        for index in range(PAIRS):
            a, b = (store.save(run) for run in random_run_pair(rng, index))
            compared = compare_runs(store, a, b)
            said = comparison_rows(pages.comparison(Links(), store, compared))
            for cell in compared.cells:
                row, where = said[cell.case, cell.contender], f"runs {a} and {b}: {cell.case} {cell.contender}"
                for text, median in ((row.a, cell.a), (row.b, cell.b)):
                    if median is not None:
                        check_times(text, median)
                if cell.shown is None:
                    assert row.ratio == "" and row.verdict == "not measured in both runs", where
                    continue
                seen.add(cell.shown.verdict)
                rows += 1
                assert _verdict_label(row.verdict) == cell.shown.verdict and row.verdict == cell.shown.text, where
                assert row.ratio == cell.shown.ratio and row.struck == cell.shown.struck, where
                check_ratio(row.ratio, cell.ratio)  # type: ignore[arg-type]
                # Unpaired: the ratio is that of the medians shown, so no row needs a note.
                assert row.note == "" and cell.ratio.value == pytest.approx(cell.b.value / cell.a.value), where  # type: ignore[union-attr]
    assert rows >= 200 and seen == set(VERDICTS) - {REPEAT_ONLY}  # repeat-only: no cautions across runs
