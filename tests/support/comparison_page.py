"""Reading the web comparison page (``/compare/A/B``) back: what each row says."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_ROW = re.compile(
    r"<tr><td>([^<]*)</td><td>([^<]*)</td>\s*<td>([^<]*)</td>\s*<td>([^<]*)</td>\s*"
    r'<td class="([^"]*)">([^<]*)</td><td class="([^"]*)">([^<]*)</td></tr>\s*'
    r'(?:<tr class="consistency"><td colspan="6" class="note">([^<]*)</td></tr>)?'
)


@dataclass(frozen=True)
class Row:
    a: str  # run A's median with its interval, as shown
    b: str
    ratio: str  # '' when there is none
    struck: bool
    verdict: str  # the verdict with its detail: 'slower', 'no detectable difference (p=0.4)'
    verdict_class: str
    note: str  # the consistency note under the row, '' when none


def comparison_rows(page: str) -> dict[tuple[str, str], Row]:
    """(case, contender) -> what the page's row says of it."""
    table = re.search(r'<table class="comparison">.*?</table>', page, re.S)
    assert table is not None, page
    return {
        (html.unescape(case), html.unescape(contender)): Row(
            html.unescape(a),
            html.unescape(b),
            html.unescape(ratio),
            ratio_class == "struck",
            html.unescape(verdict),
            verdict_class,
            html.unescape(note or ""),
        )
        for case, contender, a, b, ratio_class, ratio, verdict_class, verdict, note in _ROW.findall(table.group(0))
    }
