"""A pyperformance benchmark's metadata file, read as pyperformance reads it: the benchmark a
``pyperformance:NAME`` (or a path to such a file) names is a pyperf script run with options.

pyperformance describes each benchmark of its MANIFEST by a TOML file: ``bm_NAME/pyproject.toml``,
or ``bm_BASE/bm_NAME.toml`` for a variant of ``bm_BASE``'s script. Its ``[tool.pyperformance]``
table gives the benchmark's ``name`` (when the file's name gives none), the script (``runscript``, by default ``run_benchmark.py``
beside the file) and the options the script is run with (``extra_opts``); a variant's file
inherits what it does not say from ``bm_BASE/pyproject.toml`` (or from its ``inherits`` file),
the first value given winning (pyperformance's ``_benchmark_metadata.load_metadata``).

Standard library only (workers load benchmarks under the measured interpreter): TOML is read with
tomllib, or tomli before Python 3.11.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from perflab.bench.spec import BenchmarkFileError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

PYPROJECT = "pyproject.toml"
RUNSCRIPT = "run_benchmark.py"


@dataclass(frozen=True)
class Metafile:
    """What pyperformance runs for one benchmark: ``python runscript *extra_opts``."""

    name: str
    runscript: str
    extra_opts: tuple[str, ...]


def is_metafile(path: str) -> bool:
    """A file pyperformance could describe a benchmark with (``bm_*.toml`` or a ``pyproject.toml``
    with a ``[tool.pyperformance]`` table), by its name and, for pyproject.toml, its text."""
    base = os.path.basename(path)
    if base.startswith("bm_") and base.endswith(".toml"):
        return True
    if base != PYPROJECT:
        return False
    try:
        with open(path, "rb") as file:
            return b"[tool.pyperformance]" in file.read()
    except OSError:
        return False


def read(path: str) -> Metafile:
    """The benchmark ``path`` describes; a BenchmarkFileError naming the file when it cannot be read."""
    path = os.path.realpath(path)
    merged: dict[str, Any] = {}
    seen = set()
    current: str | None = path
    while current is not None:  # the file, then the file it inherits from: the first value wins
        if current in seen:
            raise BenchmarkFileError(f"{path}: pyperformance metadata inherits from itself ({current})")
        seen.add(current)
        tool = _tool_table(current)
        rootdir = os.path.dirname(current)
        for field in ("name", "runscript", "extra_opts"):
            if not merged.get(field) and tool.get(field):
                value = tool[field]
                merged[field] = os.path.join(rootdir, value) if field == "runscript" else value
        current = _base_of(current, tool.get("inherits"))
    # pyperformance names a benchmark by its MANIFEST line, which is the file's bm_NAME: [tool.pyperformance]'s
    # name is the script's (bm_argparse/pyproject.toml, the MANIFEST's argparse, says argparse_many_optionals)
    name = _name_from_filename(path) or merged.get("name")
    runscript = merged.get("runscript") or os.path.join(os.path.dirname(path), RUNSCRIPT)
    options = merged.get("extra_opts") or ()
    if not isinstance(options, (list, tuple)) or not all(isinstance(o, str) and o for o in options):
        raise BenchmarkFileError(f"{path}: extra_opts must be a list of non-empty strings, not {options!r}")
    if not name:
        raise BenchmarkFileError(f"{path}: no benchmark name ([tool.pyperformance] name, or a bm_NAME file name)")
    if not os.path.isfile(runscript):
        raise BenchmarkFileError(f"{path}: the benchmark's script {runscript} does not exist")
    return Metafile(str(name), runscript, tuple(options))


def _tool_table(path: str) -> dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise BenchmarkFileError(
                f"{path}: reading pyperformance's benchmark metadata needs Python 3.11+ or tomli "
                "under this interpreter (pip install tomli)"
            ) from None
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise BenchmarkFileError(f"{path}: cannot read pyperformance metadata: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise BenchmarkFileError(f"{path}: not valid TOML: {error}") from None
    tool = data.get("tool", {}).get("pyperformance", {})
    return tool if isinstance(tool, dict) else {}


def _base_of(path: str, inherits: Any) -> str | None:
    """The file ``path`` inherits from: ``inherits`` (``..``: the parent folder's base.toml), else
    for ``bm_BASE/bm_NAME.toml`` the folder's pyproject.toml; None for none."""
    rootdir, base = os.path.split(path)
    if inherits:
        target = os.path.join(os.path.dirname(rootdir), "base.toml") if inherits == ".." else str(inherits)
        return os.path.realpath(os.path.join(rootdir, target))
    if base == PYPROJECT or not os.path.basename(rootdir).startswith("bm_"):
        return None
    pyproject = os.path.join(rootdir, PYPROJECT)
    return pyproject if os.path.isfile(pyproject) else None


def _name_from_filename(path: str) -> str | None:
    rootdir, base = os.path.split(path)
    if base == PYPROJECT:
        folder = os.path.basename(rootdir)
        return folder[len("bm_") :] if folder.startswith("bm_") else None
    return base[len("bm_") : -len(".toml")] if base.startswith("bm_") else None
