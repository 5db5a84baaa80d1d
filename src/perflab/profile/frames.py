"""Frame labels: ``name (file:line)`` for Python frames, ``name (file)`` for native ones.

Both samplers write labels in py-spy's format; this module reads them back into their parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LABEL = re.compile(r"^(?P<name>.*?) \((?P<file>.*?)(?::(?P<line>\d+))?\)$", re.DOTALL)  # names may hold line breaks
_PYTHON_SUFFIXES = (".py", ".pyw")


@dataclass(frozen=True)
class Frame:
    name: str
    file: str
    line: int | None

    @property
    def is_python(self) -> bool:
        """Python code (source file or a ``<frozen ...>``/``<string>`` pseudo-file), not native code."""
        return self.file.endswith(_PYTHON_SUFFIXES) or self.file.startswith("<")

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    @property
    def label(self) -> str:
        return f"{self.name} ({self.location})" if self.file else self.name


def parse_frame(label: str) -> Frame:
    match = _LABEL.match(label)
    if match is None:
        return Frame(label, "", None)
    line = match["line"]
    return Frame(match["name"], match["file"], int(line) if line else None)
