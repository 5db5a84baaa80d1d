"""Results files in and out of the store: perflab's own JSON, and pyperf JSON (perflab.results.pyperf);
in only: Google Benchmark JSON, criterion.rs directories and asv results (perflab.results.import_gbench,
import_criterion, import_asv)."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path

from perflab.asv_config import DEFAULT_BENCHMARK_DIR
from perflab.results import import_asv, import_criterion, import_gbench, imported_numbers
from perflab.results.model import SCHEMA, RunResult


class ResultsFileError(Exception):
    """A file that cannot be read as results; the message names it."""


def load_file(path: str | Path, benchmark: str | None = None, contender: str | None = None) -> RunResult:
    """A perflab results file, or a pyperf JSON file (``benchmark``/``contender`` name it)."""
    path = Path(path)
    try:
        if not path.is_dir() and path.exists():
            imported_numbers.file_size(path.stat().st_size)
        return _load(path, benchmark, contender)
    except imported_numbers.ImpossibleNumber as error:
        raise ResultsFileError(f"{path}: {error}") from None


def _load(path: Path, benchmark: str | None, contender: str | None) -> RunResult:
    if path.is_dir():  # criterion.rs writes a directory tree, not a file
        try:
            return import_criterion.load(path, benchmark)
        except import_criterion.NotCriterion as error:
            raise ResultsFileError(str(error)) from None
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsFileError(f"{path}: not a readable JSON results file ({error})") from None
    except RecursionError:
        raise ResultsFileError(f"{path}: not a results file (JSON nested too deeply to read)") from None
    if isinstance(data, dict) and str(data.get("schema", "")).startswith("perflab.results/"):
        try:
            return imported_numbers.check_run(RunResult.from_json(data))
        except KeyError as error:
            raise ResultsFileError(f"{path}: not a valid perflab results file (field {error} is missing)") from None
        except (ValueError, TypeError, AttributeError, RecursionError) as error:
            raise ResultsFileError(
                f"{path}: not a valid perflab results file (a field has the wrong type or value: {error})"
            ) from None
    if import_asv.is_asv_results(data):
        try:
            return import_asv.load(path, data, benchmark or DEFAULT_BENCHMARK_DIR)
        except (import_asv.NotAsvResults, KeyError, TypeError, ValueError) as error:
            raise ResultsFileError(f"{path}: not asv results perflab can read ({error})") from None
    if import_gbench.is_gbench(data):
        try:
            return import_gbench.from_json(data, benchmark or path.stem, str(path))
        except import_gbench.NotGoogleBenchmark as error:
            raise ResultsFileError(f"{path}: not valid Google Benchmark JSON ({error})") from None
    from perflab.results import pyperf  # and pyperf itself (a tenth of a second): only for its files

    try:
        return pyperf.load(path, benchmark or path.stem, contender or path.stem)
    except pyperf.NotPyperf as error:
        raise ResultsFileError(
            f"{path}: neither a perflab results file ({SCHEMA}) nor a pyperf JSON file ({error})"
        ) from None


def unsaved_file() -> Path:
    """Where a run that could not be stored is kept: a new file in the current directory (or, if
    that is not writable, the temporary one), for ``perflab import`` later."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    directory = Path.cwd() if os.access(Path.cwd(), os.W_OK) else Path(tempfile.gettempdir())
    candidate = directory / f"perflab-unsaved-{stamp}.json"
    return directory / f"perflab-unsaved-{stamp}-{os.getpid()}.json" if candidate.exists() else candidate


def exported_paths(result: RunResult, run_id: int, directory: str | Path, pyperf_format: bool) -> list[Path]:
    """What ``export`` would write: the run's file, or its folder of pyperf files."""
    name = _export_name(result, run_id)
    return [Path(directory) / (name if pyperf_format else f"{name}.json")]


def export(result: RunResult, run_id: int, directory: str | Path, pyperf_format: bool) -> list[Path]:
    """Write one stored run: ``<benchmark>-<id>.json`` (perflab), or a folder of pyperf files."""
    directory = Path(directory)
    name = _export_name(result, run_id)
    if pyperf_format:
        from perflab.results import pyperf

        return pyperf.export(result, directory / name)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    result.save(path)
    return [path]


def _export_name(result: RunResult, run_id: int) -> str:
    return f"{re.sub(r'[^A-Za-z0-9_.-]', '_', result.benchmark)}-{run_id}"
