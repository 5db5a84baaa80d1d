"""perflab mcp's own checks of its arguments, in process: which function of an assistant's source is
the candidate, and the one line that says how to install the missing extra."""

from __future__ import annotations

import sys

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from perflab.agent.candidate import function_name
from perflab.cli import main

HELPER_AND_TWO = (
    "def _key(x):\n    return x\n\ndef ordered(items):\n    return items\n\ndef other(items):\n    return items\n"
)


def test_the_one_function_defined_is_the_candidate():
    assert function_name("import json\n\ndef fast(obj):\n    return json.dumps(obj)\n", None, "stdlib") == "fast"


def test_among_several_the_one_named_like_the_contender_or_the_one_asked_for():
    assert function_name(HELPER_AND_TWO, None, "ordered") == "ordered"
    assert function_name(HELPER_AND_TWO, "other", "ordered") == "other"
    with pytest.raises(ToolError, match=r"say which function .* \(defined: _key, ordered, other\)"):
        function_name(HELPER_AND_TWO, None, "dedupe")


def test_a_source_without_a_function_is_refused():
    with pytest.raises(ToolError, match=r"defined: none"):
        function_name("fast = sorted\n", None, "ordered")


def test_without_the_extra_the_verb_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mcp", None)  # what importlib reports for a package not installed
    assert main(["mcp"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == "perflab: error: perflab mcp needs the mcp package: pip install 'perflab[mcp]'"
