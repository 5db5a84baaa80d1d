"""Whether the session measured a stale build of the project's compiled extensions.

A pytest session times whatever extension modules it imports; it cannot build them. When the C,
Cython or Rust source of the repository changed after its extension was built (a commit or a
checkout without a rebuild), the session measured another tree's build while its runs are stored
under this commit: a ``--perflab-against REF`` gate would compare the wrong code, and later gates
against this commit would too. The test is make's, over the whole project: the newest extension
imported from the repository (an in-place or editable build) or from a distribution installed from
it (``direct_url.json``) is older than the newest tracked source file of a compiled language.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import json
import math
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

from perflab import git

# Files whose change needs a rebuild: C and C++, Cython, Rust, Fortran sources and headers.
_SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".pyx", ".pxd", ".pxi", ".rs", ".f", ".f90")
MARK = "stale_build"  # the run metadata's key: why the run's build is stale


def find(test_file: str | Path) -> str | None:
    """One line saying which imported extension is older than which source, or None (fresh, or
    nothing compiled from the repository holding ``test_file`` was imported)."""
    root = git.top_level(test_file)
    if root is None:
        return None
    imported = _imported_extensions()
    installed = _installed_from(root) if any(not _built_in(path, root) for path in imported) else set()
    extensions = [path for path in imported if _built_in(path, root) or path in installed]
    if not extensions:
        return None
    listed = git.answer(root, "ls-files", "-z")
    sources = [root / name for name in (listed or "").split("\0") if name.endswith(_SOURCE_SUFFIXES)]
    newest = max((path for path in sources if path.is_file()), key=lambda path: path.stat().st_mtime, default=None)
    if newest is None:
        return None
    # The newest extension: a rebuild recompiles only the extensions whose sources changed, so an
    # unchanged one keeps its older file; any build after the last source change is this tree's.
    built = max(extensions, key=lambda path: path.stat().st_mtime)
    if built_after(built, newest):
        return None
    return f"{built.name} was built before {newest.relative_to(root)} last changed"


def built_after(extension: Path, source: Path) -> bool:
    """Whether ``extension`` was built after ``source`` last changed. setuptools copies an in-place
    build's file with its time cut to the whole second (distutils' copy_file), so an extension built
    within the second of the change reads as older than it: the source's time is cut the same way
    (a change in the second after a build is then missed; a rebuild was called stale in CI)."""
    return extension.stat().st_mtime >= math.floor(source.stat().st_mtime)


def _imported_extensions() -> list[Path]:
    found = []
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            found.append(Path(file).resolve())
    return found


def _built_in(extension: Path, root: Path) -> bool:
    """Built in the repository's tree (in place, editable), not installed into a virtual
    environment that happens to live there (``.venv/``)."""
    inside = extension.is_relative_to(root)
    return inside and not {"site-packages", "dist-packages"} & set(extension.relative_to(root).parts)


def _installed_from(root: Path) -> set[Path]:
    """The files of the distributions installed from the repository (``pip install .``): their
    ``direct_url.json`` names it."""
    files: set[Path] = set()
    for distribution in importlib.metadata.distributions():
        direct = distribution.read_text("direct_url.json")
        url = urlparse(json.loads(direct).get("url", "")) if direct else None
        if url is not None and url.scheme == "file" and Path(unquote(url.path)).resolve() == root:
            files.update(Path(str(distribution.locate_file(file))).resolve() for file in distribution.files or [])
    return files
