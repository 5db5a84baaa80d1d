"""``pyperformance:NAME``: the run_benchmark.py script of a benchmark of the installed pyperformance
suite, run unchanged as a pyperf script (perflab.bench.pyperf_script)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PREFIX = "pyperformance:"


def benchmarks_directory() -> Path | None:
    """pyperformance's directory of benchmark scripts, or None when it is not installed."""
    spec = importlib.util.find_spec("pyperformance")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "data-files" / "benchmarks"
    return found if found.is_dir() else None


def names() -> list[str]:
    directory = benchmarks_directory()
    if directory is None:
        return []
    return sorted(path.parent.name[len("bm_") :] for path in directory.glob("bm_*/run_benchmark.py"))


def path_of(reference: str, error: type[Exception]) -> Path:
    """The script ``pyperformance:NAME`` names; ``error(message)`` when there is none."""
    name = reference[len(PREFIX) :]
    directory = benchmarks_directory()
    if directory is None:
        raise error(f"{reference}: pyperformance is not installed (pip install pyperformance)")
    script = directory / f"bm_{name}" / "run_benchmark.py"
    if not name or "/" in name or not script.is_file():
        raise error(f"{reference}: no such pyperformance benchmark (installed: {', '.join(names())})")
    return script
