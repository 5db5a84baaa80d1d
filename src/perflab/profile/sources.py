"""The source of the functions a --lines profile sampled, read from their files when it is taken.

A line heat map marks lines of source. The text is kept in the profile's metadata (``sources``), so
a profile shown later (the HTML page, the web view of a stored profile) is self-contained, and an
edit of a file since cannot shift the marks onto other lines. What is kept is capped, at the
MAX_FUNCTIONS hottest functions (by total share) of MAX_LINES lines each (a window from just above
the first sampled line of a longer function): a stored profile stays kilobytes, not a generated
module's megabytes per function, and a function too cold to rank has no heat to show.
"""

from __future__ import annotations

import ast
import tokenize
from collections.abc import Sequence
from typing import Any

from perflab.profile.frames import parse_frame
from perflab.profile.line_heat import function_shares, sampled_lines
from perflab.profile.model import Profile
from perflab.profile.processors import resolve_path

MAX_FUNCTIONS = 20
MAX_LINES = 120
CONTEXT = 2  # lines kept above and below the sampled ones where no definition gives the extent

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def read_sources(profile: Profile, roots: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """``[{"name", "file", "first", "lines"}]``: the hottest sampled Python functions' source lines
    (``first``: the number of the first), their files found through the roots their paths were
    shortened with; a function whose file cannot be read (``<frozen ...>``, deleted) is left out."""
    functions = function_shares(profile.runs)
    lines = sampled_lines({label for run in profile.runs for stack in run for label in stack})
    hottest = sorted(lines, key=lambda key: (-functions[key].total_samples, key))[:MAX_FUNCTIONS]
    kept = []
    for key in hottest:
        frame = parse_frame(key)
        path = resolve_path(frame.file, roots)
        text = _read(path) if path else None
        if text is None:
            continue
        first, last = _extent(text, frame.name, sorted(lines[key]))
        kept.append({"name": frame.name, "file": frame.file, "first": first, "lines": text[first - 1 : last]})
    return kept


def _read(path: str) -> list[str] | None:
    try:
        with tokenize.open(path) as file:  # the encoding its coding cookie declares, as Python reads it
            return file.read().splitlines()
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None


def _extent(text: list[str], name: str, sampled: Sequence[int]) -> tuple[int, int]:
    """(first, last) line to keep: the innermost definition of ``name`` holding every sampled line
    (``Class.method`` matches ``def method``; ``f.<locals>.<genexpr>``, a comprehension's or lambda's
    own code, the ``def f`` around it), else the sampled lines with context;
    at most MAX_LINES from just above the first sampled line."""
    low, high = sampled[0], sampled[-1]
    first, last = max(1, low - CONTEXT), min(len(text), high + CONTEXT)
    try:
        tree = ast.parse("\n".join(text))
    except (SyntaxError, ValueError):  # edited since it ran, or not Python: the sampled lines only
        tree = None
    defined = next((part for part in reversed(name.split(".")) if not part.startswith("<")), None)
    spans = [
        (min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.end_lineno or node.lineno)
        for node in (ast.walk(tree) if tree else ())
        if isinstance(node, _DEFINITIONS) and node.name == defined
    ]
    holding = [(start, end) for start, end in spans if start <= low and high <= end]
    if holding:
        first, last = min(holding, key=lambda span: span[1] - span[0])
    if last - first >= MAX_LINES:
        first = max(first, low - CONTEXT)
        last = min(last, first + MAX_LINES - 1)
    return first, last
