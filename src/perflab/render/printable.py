"""Control characters made visible: an escape sequence in a name a user chose (``ESC[2J`` clears
the screen, BEL rings) must never reach a terminal or a pasted Markdown summary as it is."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, and the C1 controls (0x9b is a one-byte CSI on some terminals).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character (but tab and newline) replaced by a visible symbol."""
    return _CONTROL.sub(_symbol, text)


def _symbol(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures": ␛ for ESC, ␇ for BEL
    return "␡" if code == 0x7F else "\ufffd"
