"""The built-in case studies: benchmark files shipped with perflab, runnable by name.

Each one is a plain benchmark file in this folder, written to be read and copied.
"""

from __future__ import annotations

import ast
from pathlib import Path

from perflab.bench.native_build import find_tool

_FOLDER = Path(__file__).parent
# Programs built from the sources in native/ before they run, and the toolchain each needs.
NATIVE = {"cpp_json_scan": "g++", "rust_substring": "cargo", "rust_uuids": "cargo"}


def names() -> list[str]:
    return sorted(p.stem for p in _FOLDER.glob("*.py") if not p.stem.startswith("_"))


def path_of(name: str) -> Path | None:
    path = _FOLDER / f"{name}.py"
    return path if name in names() else None


def missing_toolchain(name: str) -> str | None:
    """The toolchain a native built-in needs that is not on this machine (None: none missing)."""
    tool = NATIVE.get(name)
    return tool if tool is not None and find_tool(tool) is None else None


def summary(name: str) -> str:
    """First line of the built-in's docstring, read without importing it."""
    docstring = ast.get_docstring(ast.parse((_FOLDER / f"{name}.py").read_text())) or ""
    return docstring.strip().splitlines()[0] if docstring.strip() else ""
