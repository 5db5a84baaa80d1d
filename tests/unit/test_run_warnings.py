"""A run's warnings come from one place (perflab.results.warnings.run_warnings) and every surface
says them: the terminal, --json, Markdown, the HTML report, the web's run page and API, the pytest
plugin's summary, check's outputs and bisect's."""

from __future__ import annotations

import html
import io
import json

import pytest
from rich.console import Console
from support.store_results import synthetic_result

from perflab.analysis.gate import CheckResult
from perflab.measure.bisect import Outcome
from perflab.pytest_plugin.report import warning_lines
from perflab.render import markdown
from perflab.render.html import gate_pages
from perflab.render.html import report as report_html
from perflab.render.terminal import bisect as terminal_bisect
from perflab.render.terminal import results as terminal
from perflab.results.model import RunResult
from perflab.results.store import Store, location
from perflab.results.warnings import BUSY_MACHINE, PRECISION_MISSED, TIMING, run_warnings
from perflab.web import pages
from perflab.web.site import Links

TIMING_WARNING = "value length moved the estimate: 1.4x between 1 ms and 10 ms values <sorted>"


def _warned() -> RunResult:
    result = synthetic_result(machine={"cpu_model": "cpu", "cpu_count": 2}, processes=4)
    result.settings.update(alpha=0.05, min_effect=0.01)
    result.metadata.update(load_average_at_start=1.2, load_average_at_end=9.5, timing_warnings=[TIMING_WARNING])
    return result


def _terminal(result: RunResult) -> str:
    console = Console(file=io.StringIO(), width=400, color_system=None)
    terminal.render(result, console)
    return " ".join(console.file.getvalue().split())  # type: ignore[attr-defined]


def test_the_warnings_of_a_run():
    result = _warned()
    assert [w.kind for w in run_warnings(result)] == [PRECISION_MISSED, BUSY_MACHINE, TIMING]
    busy = run_warnings(result)[1].text
    assert busy.startswith("busy machine: load average 9.5 on 2 CPUs while measuring")
    result.metadata.update(load_average_at_end=0.5, timing_warnings=None)  # absent in older files
    for cell in result.cells:
        cell.target_reached = True
    assert run_warnings(result) == []


def test_every_output_of_a_run_says_its_warnings(tmp_path):
    result = _warned()
    texts = [w.text for w in run_warnings(result)]
    data = json.loads(json.dumps(result.to_json()))
    assert data["warnings"] == [w.to_json() for w in run_warnings(result)]
    assert RunResult.from_json(data).metadata == result.metadata  # derived: ignored when read back
    with Store.open(location(str(tmp_path / "store.db"))) as store:
        web = pages.run(Links(), store, [], store.save(result))
    outputs = {
        "terminal": _terminal(result),
        "markdown": html.unescape(markdown.render_result(result)),
        "html": html.unescape(report_html.render([report_html.Section(result)], "t")),
        "web": html.unescape(web),
        "pytest": "\n".join(warning_lines([result])),
    }
    for name, output in outputs.items():
        for text in texts:
            assert text in output, (name, text)


def test_the_pytest_summary_names_the_files_only_some_of_whose_runs_warn():
    warned, quiet = _warned(), synthetic_result(benchmark="pytest:test_b.py", machine={"cpu_count": 2})
    quiet.metadata.update(load_average_at_start=0.1)
    for cell in quiet.cells:
        cell.target_reached = True
    lines = warning_lines([warned, quiet])
    assert lines[1] == f"warning (bench): {run_warnings(warned)[1].text}"


@pytest.mark.parametrize("paired", [True, False])
def test_check_and_bisect_outputs_say_the_warnings_of_their_runs(paired):
    texts = [w.text for w in run_warnings(_warned())]
    check = CheckResult(0.05, 0.05, paired=paired, warnings=texts)
    outcome = Outcome("b" * 40, "subject", "SMALL", (1.2, 1.1, 1.3), warnings=texts)
    console = Console(file=io.StringIO(), width=400, color_system=None)
    terminal_bisect.render(outcome, console)
    outputs = {
        "check markdown": html.unescape(markdown.render_check(check, "bench", "main", "HEAD")),
        "check html": html.unescape(gate_pages.render_check(check, "bench", "main", "HEAD")),
        "check json": "\n".join(check.to_json("bench", "main", "HEAD")["warnings"]),
        "bisect markdown": html.unescape(markdown.render_bisect(outcome)),
        "bisect html": html.unescape(gate_pages.render_bisect(outcome)),
        "bisect terminal": " ".join(console.file.getvalue().split()),  # type: ignore[attr-defined]
        "bisect json": "\n".join(outcome.to_json()["warnings"]),
    }
    for name, output in outputs.items():
        for text in texts:
            assert text in output, (name, text)
