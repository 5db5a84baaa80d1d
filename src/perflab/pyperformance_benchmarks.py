"""``pyperformance:NAME``: a benchmark of the installed pyperformance suite's MANIFEST, by the name
pyperformance gives it (``pickle_dict``, ``async_tree_io``, ...). NAME resolves to the benchmark's
metadata file, which perflab loads as pyperformance runs it: its script, unchanged, as a pyperf
script (perflab.bench.pyperf_script), with the options the file gives (perflab.bench.pyperformance_metafile).

The MANIFEST's ``[benchmarks]`` table is read as pyperformance's ``_manifest`` reads it: a
``name<TAB>metafile`` line per benchmark, ``<local>`` for ``bm_NAME/pyproject.toml`` and
``<local:BASE>`` for ``bm_BASE/bm_NAME.toml``; ``#`` starts a comment.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PREFIX = "pyperformance:"
MANIFEST = "MANIFEST"


def benchmarks_directory() -> Path | None:
    """pyperformance's directory of benchmark scripts, or None when it is not installed."""
    spec = importlib.util.find_spec("pyperformance")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "data-files" / "benchmarks"
    return found if found.is_dir() else None


def manifest() -> dict[str, Path]:
    """Every benchmark of the installed pyperformance's MANIFEST: name -> its metadata file."""
    directory = benchmarks_directory()
    if directory is None or not (directory / MANIFEST).is_file():
        return {}
    return read_manifest(directory / MANIFEST)


def read_manifest(path: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    section = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#")[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section != "benchmarks" or not line or line.split() == ["name", "metafile"]:
            continue
        name, _, metafile = (field.strip() for field in line.partition("\t"))
        found[name] = _metafile(path.parent, name, metafile)
    return found


def _metafile(root: Path, name: str, metafile: str) -> Path:
    if metafile.startswith("<local") and metafile.endswith(">"):
        base = metafile[1:-1].partition(":")[2]
        return root / f"bm_{base}" / f"bm_{name}.toml" if base else root / f"bm_{name}" / "pyproject.toml"
    return (root / metafile).resolve()


def names() -> list[str]:
    return sorted(manifest())


def path_of(reference: str, error: type[Exception]) -> Path:
    """The metadata file of the benchmark ``pyperformance:NAME`` names; ``error(message)`` when there is none."""
    name = reference[len(PREFIX) :]
    if benchmarks_directory() is None:
        raise error(f"{reference}: pyperformance is not installed (pip install pyperformance)")
    found = manifest().get(name)
    if found is None or not found.is_file():
        raise error(f"{reference}: no such pyperformance benchmark (its MANIFEST's: {', '.join(names())})")
    return found


def pyperf_command(name: str) -> list[str]:
    """The script and options pyperformance runs for benchmark ``name`` (pyperf's own command line)."""
    from perflab.bench import pyperformance_metafile

    described = pyperformance_metafile.read(str(path_of(PREFIX + name, ValueError)))
    return [described.runscript, *described.extra_opts]
