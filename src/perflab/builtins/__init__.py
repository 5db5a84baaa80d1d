"""The built-in case studies: benchmark files shipped with perflab, runnable by name.

Each one is a plain benchmark file in this folder, written to be read and copied.
"""

from __future__ import annotations

import ast
from pathlib import Path

_FOLDER = Path(__file__).parent
# Programs built from the sources in native/ (g++, cargo) before they run: runnable by name, and
# left out of ``perflab demo``, whose short budget a first build alone would exceed.
NATIVE = ("cpp_json_scan", "rust_substring", "rust_uuids")


def names() -> list[str]:
    return sorted(p.stem for p in _FOLDER.glob("*.py") if not p.stem.startswith("_"))


def path_of(name: str) -> Path | None:
    path = _FOLDER / f"{name}.py"
    return path if name in names() else None


def summary(name: str) -> str:
    """First line of the built-in's docstring, read without importing it."""
    docstring = ast.get_docstring(ast.parse((_FOLDER / f"{name}.py").read_text())) or ""
    return docstring.strip().splitlines()[0] if docstring.strip() else ""
