"""User-supplied text (names of cases, contenders, files, revisions; messages of user code) made safe
for each place it is written, in one module so that every sink uses the same rule:

- ``printable``: a terminal. Control characters are shown, never sent: an escape sequence in a name
  (``ESC[2J`` clears the screen, BEL rings) must never reach a terminal as it is.
- ``one_line``: a line of a log or of progress output (a CI log): newlines shown too, so that a name
  ``x\\nFAKE`` (or ``x\\n::error::...`` in GitHub Actions) cannot forge a line.
- ``xml_text``: XML 1.0 (the Atom feed): no character XML forbids, which would make the whole feed
  unreadable for every reader; the template escapes markup.
- ``markdown_inert``: a Markdown comment on GitHub: ``@org/team``, ``#12`` and bare URLs stay text,
  not mentions that notify people, links to issues or live links.

HTML pages are Jinja2's autoescaping (perflab.render.html.templating).
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, and the C1 controls (0x9b is a one-byte CSI on some terminals).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What XML 1.0 forbids beyond the controls: lone surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")
# A zero-width space between the sign and what follows: GitHub then sees no mention, reference or link
# (the way dependabot writes @names), and a reader sees the text unchanged.
_BREAK = "\u200b"
_SIGNS = re.compile(r"(@|(?<!\w)#)(?=[\w-])")  # @name, @org/team, a@b.example (a mail link), #12 (not C#12)
_SCHEMES = re.compile(r"(?<=\w)(?=://)")  # https://...
_WWW = re.compile(r"\b(www)(?=\.)", re.IGNORECASE)  # www.example.org


def printable(text: str) -> str:
    """``text`` with every control character (but tab and newline) replaced by a visible symbol."""
    return _CONTROL.sub(_symbol, text)


def one_line(text: str) -> str:
    """``text`` as one line: ``printable``, and newlines shown as ␊."""
    return printable(text).replace("\n", "\u240a")


def xml_text(text: str) -> str:
    """``text`` with only characters XML 1.0 allows (controls shown as in ``printable``)."""
    return _NOT_XML.sub("\ufffd", printable(text))


def markdown_inert(text: str) -> str:
    """``text`` with no @mention, #reference or autolinked URL left for GitHub to act on."""
    text = _SIGNS.sub(rf"\1{_BREAK}", text)
    return _WWW.sub(rf"\1{_BREAK}", _SCHEMES.sub(_BREAK, text))


def _symbol(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures": ␛ for ESC, ␇ for BEL
    return "␡" if code == 0x7F else "\ufffd"
