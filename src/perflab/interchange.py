"""Results files in and out of the store: perflab's own JSON and pyperf JSON.

pyperf files are read with pyperf's own loader (``pyperf.BenchmarkSuite.load``) and mapped the
way ``perflab run --pyperf`` writes them: one file per contender, one pyperf benchmark per case,
one pyperf run per worker process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyperf

from perflab import stats
from perflab.renderers import pyperf_json
from perflab.results import SCHEMA, Cell, Equivalence, ProcessRun, RunResult, REFERENCE


class InterchangeError(Exception):
    """A file that cannot be read as results; the message names it."""


def load_file(path: str | Path, benchmark: str | None = None, contender: str | None = None) -> RunResult:
    """A perflab results file, or a pyperf JSON file (``benchmark``/``contender`` name it)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InterchangeError(f"{path}: not a readable JSON results file ({error})") from None
    if isinstance(data, dict) and data.get("schema", "").startswith("perflab.results/"):
        try:
            return RunResult.from_json(data)
        except (ValueError, KeyError, TypeError) as error:
            raise InterchangeError(f"{path}: {error}") from None
    try:
        suite = pyperf.BenchmarkSuite.load(str(path))
    except Exception as error:  # noqa: BLE001 - pyperf raises many types on foreign JSON
        raise InterchangeError(f"{path}: neither a perflab results file ({SCHEMA}) nor a pyperf JSON "
                               f"file ({type(error).__name__}: {error})") from None
    return from_pyperf(suite, benchmark or path.stem, contender or path.stem, str(path))


def from_pyperf(suite: pyperf.BenchmarkSuite, benchmark: str, contender: str, file: str) -> RunResult:
    first = suite.get_benchmarks()[0]
    meta = first.get_metadata()
    metadata = {
        "python": {"implementation": meta.get("python_implementation"),
                   "version": str(meta.get("python_version", "")).split(" ")[0] or None,
                   "build": meta.get("python_compiler")},
        "machine": {"cpu_model": meta.get("cpu_model_name"), "cpu_count": meta.get("cpu_count"),
                    "os": meta.get("platform"), "kernel": None, "hostname": meta.get("hostname")},
        "git": None, "packages": {}, "imported_from": "pyperf", "date": meta.get("date"),
    }
    result = RunResult(benchmark=benchmark, file=file, reference=contender, settings={}, metadata=metadata,
                       work={})
    for bench in suite.get_benchmarks():
        cell = Cell(bench.get_name(), contender)
        for index, run in enumerate(bench.get_runs()):
            if run.values:
                loops = run.get_loops()
                cell.runs.append(ProcessRun(index, loops, [value for _, value in run.warmups or ()],
                                            list(run.values)))
        if cell.process_values():
            cell.estimates = stats.estimate_cell(cell.process_values())
            cell.loops = cell.runs[0].loops
        result.cells.append(cell)
        result.equivalence.append(Equivalence(cell.case, contender, REFERENCE))
        result.work[cell.case] = None
    return result


def export(result: RunResult, run_id: int, directory: str | Path, pyperf_format: bool) -> list[Path]:
    """Write one stored run: ``<benchmark>-<id>.json`` (perflab), or a folder of pyperf files."""
    directory = Path(directory)
    name = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', result.benchmark)}-{run_id}"
    if pyperf_format:
        return pyperf_json.export(result, directory / name)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    result.save(path)
    return [path]
