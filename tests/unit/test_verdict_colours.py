"""One colour per verdict on every surface, from the results model (perflab.results.verdicts.COLOURS):
"faster" was blue in the HTML report and green on the web (whose run page loaded both sheets) and in
the terminal, whose styles are read from the same table."""

from __future__ import annotations

import re
from importlib import resources

from perflab.render.html.report import VERDICT_CLASS
from perflab.results.verdicts import COLOURS, INVALID, REPEAT_ONLY, UNDECIDED


def _colours(sheet: str) -> dict[str, str]:
    """Each class's colour in a stylesheet, its variables resolved."""
    variables = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", sheet))
    found = {}
    for name, value in re.findall(r"\.([\w-]+)\s*\{\s*color:\s*([^;]+);", sheet):
        value = value.strip()
        found[name] = variables[value[6:-1]] if value.startswith("var(--") else value
    return found


def test_the_report_and_the_web_colour_each_verdict_as_the_model_does():
    sheets = {
        "report": resources.files("perflab.render.html").joinpath("assets/report.css").read_text(),
        "web": resources.files("perflab.web").joinpath("static/web.css").read_text(),
    }
    for name, sheet in sheets.items():
        colours = _colours(sheet)
        for verdict, colour in COLOURS.items():
            if verdict == UNDECIDED:
                continue  # muted like the page's other secondary text
            assert colours[VERDICT_CLASS[verdict]].lower() == colour.css, (name, verdict)
    assert {VERDICT_CLASS[INVALID], VERDICT_CLASS[REPEAT_ONLY]} == {"invalid", "caution"}
