"""Frame labels: ``name (file:line)`` for Python frames, ``name (file)`` for native ones.

Both samplers write labels in py-spy's format; this module reads them back into their parts, and
says which C function a native frame's name stands for (``native_function``), whichever tool named it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_LABEL = re.compile(r"^(?P<name>.*?) \((?P<file>.*?)(?::(?P<line>\d+))?\)$", re.DOTALL)  # names may hold line breaks
_PYTHON_SUFFIXES = (".py", ".pyw")
# What tools add to a C function's name: callgrind's recursion depth (f'2), a symbol version
# (malloc@@GLIBC_2.2.5; not a PLT stub, f@plt, which is code of its own) and the compiler's clones
# and split parts (f.isra.0, f.constprop.0.isra.0, f.part.0, f.cold, f.lto_priv.0, f.llvm.123):
# perf and callgrind read names from the symbol table, py-spy from the debug information, which
# names the function as written.
_TOOL_SUFFIXES = re.compile(
    r"(?:'\d+|@@?(?!plt$)[A-Za-z_][\w.]*|(?:\.(?:isra|constprop|part|cold|lto_priv|llvm|clone)(?:\.\d+)?)+)+$"
)
_UNRESOLVED = re.compile(r"^(?:0x[0-9a-fA-F]+|\[unknown\])$")


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


@functools.lru_cache(maxsize=1 << 16)  # a profile's labels repeat in thousands of its stacks
def parse_frame(label: str) -> Frame:
    match = _LABEL.match(label)
    if match is None:
        return Frame(label, "", None)
    line = match["line"]
    return Frame(match["name"], match["file"], int(line) if line else None)


def native_function(name: str) -> str | None:
    """The C function a native frame's or a callgrind entry's name stands for, as written in its
    source (``encoder_listencode_obj`` for ``encoder_listencode_obj.isra.0'2``); None for an
    unresolved address or ``[unknown]``, which stand for no one function."""
    if _UNRESOLVED.match(name):
        return None
    return _TOOL_SUFFIXES.sub("", name) or name
