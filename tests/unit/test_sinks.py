"""User text made safe for each sink it reaches (issue 42, perflab.render.printable): a terminal
(any Text or table cell, as `perflab jobs` prints them), a progress or log line (no forged line),
the Atom feed (valid XML whatever a name holds), a pull-request comment (no live @mention, #ref or
bare URL)."""

from __future__ import annotations

import io
import logging
import warnings
import xml.etree.ElementTree as ET

import pytest
from rich.table import Table
from rich.text import Text
from support.store_results import synthetic_result

from perflab.cli.worker import _OneLine
from perflab.measure.runner import Status
from perflab.render import markdown
from perflab.render.printable import markdown_inert, one_line, xml_text
from perflab.render.terminal.console import SafeConsole
from perflab.render.terminal.progress import LiveProgress
from perflab.results.store import Store

CLEAR_SCREEN = "\x1b[2J"
FORGED = "x\n::error::FAKE"


def test_a_terminal_never_receives_a_control_character_from_a_text_or_a_table_cell():
    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=True, width=120)
    table = Table("what")
    table.add_row(Text(f"bench{CLEAR_SCREEN}\x07.py"))  # perflab jobs: Text, not markup
    console.print(table)
    console.print(Text(f"a{CLEAR_SCREEN}b", style="bold"))
    assert CLEAR_SCREEN not in out.getvalue() and "\x07" not in out.getvalue()
    assert "bench␛[2J" in out.getvalue() and "\x1b[1m" in out.getvalue()  # perflab's own style stays


def test_a_name_cannot_forge_a_line_of_progress_or_of_a_worker_log():
    out = io.StringIO()
    with LiveProgress(SafeConsole(file=out, width=300), 60, 0.01) as progress:
        progress.update(Status("checking", current=f"{FORGED} / base"))
    assert out.getvalue().count("\n") == 1 and "x␊::error::FAKE" in out.getvalue()
    record = logging.LogRecord("perflab.worker", logging.INFO, "", 0, "job %s failed: %s", (3, FORGED), None)
    assert "\n" not in _OneLine("%(levelname)s %(message)s").format(record)


def test_the_atom_feed_stays_valid_xml_whatever_a_name_holds(tmp_path):
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

    from perflab.web.app import ServeSettings, create_app

    hostile = f"E{CLEAR_SCREEN}\x07\x00\ufffe"
    with Store.open(tmp_path / "s.db") as store:
        for i in range(12):
            level = 1e-5 * (1.3 if i >= 7 else 1.0)
            result = synthetic_result(
                "parse", level, seed=i, cases=(hostile,), commit=f"{i:02d}" + "ab" * 19, noise=0.01
            )
            store.save(result)
    feed = TestClient(create_app(ServeSettings(tmp_path / "s.db"))).get("/regressions.atom")
    titles = [entry.findtext("{http://www.w3.org/2005/Atom}title") for entry in ET.fromstring(feed.text)]
    assert any("E␛[2J␇␀\ufffd" in (title or "") for title in titles), titles


@pytest.mark.parametrize(
    ("name", "live"),
    [
        ("@org/team", "@org"),
        ("fixes #1", "#1"),
        ("see https://evil.example/x", "https://"),
        ("www.evil.example", "www."),
    ],
)
def test_a_name_in_a_pull_request_comment_pings_and_links_nobody(name, live):
    result = synthetic_result(cases=(name,))
    result.settings.update(alpha=0.01, min_effect=0.01)
    comment = markdown.render_result(result)
    assert live not in comment and markdown_inert(name) in comment
    assert markdown_inert(name).replace("\u200b", "") == name  # a reader sees the name unchanged


def test_each_sink_keeps_what_it_allows():
    assert one_line("a\tb") == "a\tb" and xml_text("line\nnext & <b>") == "line\nnext & <b>"
    assert markdown_inert("C# and a#b") == "C# and a#b"
