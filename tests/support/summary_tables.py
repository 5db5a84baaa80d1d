"""The tables of a check's or a bisection's Markdown summary and HTML page, read back as the cells a
reader sees, so that tests can assert that both files say the same."""

from __future__ import annotations

import html
import re


def markdown_rows(text: str) -> list[list[str]]:
    """Every table row of a Markdown summary, its cells as a reader sees them."""
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| case |") and not line.startswith("| commit |"):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append([html.unescape(re.sub(r"\\(.)", r"\1", cell.strip("`*").replace("**", ""))) for cell in cells])
    return rows


def html_rows(page: str) -> list[list[str]]:
    rows = []
    for body in re.findall(r"<tbody>(.*?)</tbody>", page, re.S):
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
            rows.append(
                [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            )
    return rows


def page_text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
