"""asv's results (``.asv/results/<machine>/<commit>-<env>.json``, format 2) as perflab runs, so
that a project's asv history comes into the store, beside the runs of ``perflab run asv.conf.json``.

One file is one commit on one machine and environment: one run, dated and placed at that commit.
Its timed benchmarks (type ``time`` in the results directory's benchmarks.json, ``timeraw_``
included) become cases named as ``perflab run`` names them (``module.Class.time_x(10, 'a')``) of
one contender, ``asv``. asv keeps the median of its samples (and the samples themselves only with
``--record-samples``): the run holds the samples when there are some, else the median alone, as
one process, so the estimates carry no interval over processes (asv's own 99% interval is not a
perflab interval and is not carried). A combination asv skipped (NaN) or that failed (null) is
kept as skipped or failed. ``mem_``, ``peakmem_`` and ``track_`` results are not times and are
left out, as ``perflab run`` leaves them out.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

from perflab.bench.asv_suite import CONTENDER, case_name
from perflab.results import imported_numbers as imported
from perflab.results.model import REFERENCE, Cell, Equivalence, ProcessRun, RunResult

RESULTS_VERSION = 2
BENCHMARKS_FILE = "benchmarks.json"


class NotAsvResults(Exception):
    """The data is not an asv results file perflab reads; the message says why."""


def is_asv_results(data: Any) -> bool:
    return isinstance(data, dict) and "result_columns" in data and "commit_hash" in data


def load(path: Path, data: dict[str, Any], benchmark: str) -> RunResult:
    """The run of one asv results file (``data``, parsed), named ``benchmark``."""
    if data.get("version") != RESULTS_VERSION:
        raise NotAsvResults(f"asv results format {data.get('version')!r}; perflab reads format {RESULTS_VERSION}")
    described = _benchmarks(path)
    columns = data["result_columns"]
    params = data.get("params") or {}
    result = RunResult(
        benchmark=benchmark,
        file=str(path),
        reference=CONTENDER,
        settings={},
        metadata={
            "python": {"version": data.get("python")},
            "machine": {
                "cpu_model": params.get("cpu"),
                "cpu_count": params.get("num_cpu"),
                "os": params.get("os"),
                "kernel": None,
                "hostname": params.get("machine"),
            },
            "git": {"commit": data["commit_hash"], "commit_time": (data.get("date") or 0) / 1000 or None},
            "packages": data.get("requirements") or {},
            "imported_from": "asv",
            "env_name": data.get("env_name"),
        },
        work={},
    )
    for name, row in sorted((data.get("results") or {}).items()):
        if described.get(name, {}).get("type") != "time":
            continue
        entry = dict(zip(columns, row))
        ids = entry.get("params") or []
        if not isinstance(ids, list) or not all(isinstance(values, list) for values in ids):
            raise NotAsvResults(f"benchmark {name!r}: params is {ids!r}, not a list of lists of values")
        imported.combinations(ids, f"benchmark {name!r}")
        # asv writes each value's repr as a string; a file written otherwise may hold the numbers
        ids = [[value if isinstance(value, str) else repr(value) for value in values] for values in ids]
        combinations = [case_name(name, combination) for combination in itertools.product(*ids)] if ids else [name]
        values = _per_combination(entry.get("result"), len(combinations))
        samples = _per_combination(entry.get("samples"), len(combinations))
        number = _per_combination(entry.get("stats_number"), len(combinations))
        for case, value, sampled, loops in zip(combinations, values, samples, number):
            result.cells.append(_cell(case, value, sampled, loops, f"benchmark {case!r}:"))
            result.work[case] = None
            result.equivalence.append(Equivalence(case, CONTENDER, REFERENCE))
    if not result.cells:
        raise NotAsvResults("no timed benchmark in it (asv's time_ and timeraw_ results)")
    return result


def _benchmarks(path: Path) -> dict[str, Any]:
    """The results directory's benchmarks.json (one level above the machine's directory)."""
    listing = path.resolve().parent.parent / BENCHMARKS_FILE
    try:
        described = json.loads(listing.read_text())
    except (OSError, ValueError) as error:
        raise NotAsvResults(
            f"{listing} is needed beside the machine's directory, to tell times apart: {error}"
        ) from None
    return described if isinstance(described, dict) else {}


def _per_combination(value: Any, count: int) -> list[Any]:
    """One entry per parameter combination (a benchmark without parameters has one, not in a list)."""
    if value is None:
        return [None] * count
    if count == 1 and not isinstance(value, list):
        return [value]
    if not isinstance(value, list) or len(value) != count:
        raise NotAsvResults(f"a result has {value!r} where {count} parameter combinations need a value each")
    return value


def _cell(case: str, value: Any, samples: Any, loops: Any, where: str) -> Cell:
    from perflab.analysis import estimates  # scipy takes ~0.6 s to import: only when a file of this kind is read

    cell = Cell(case, CONTENDER)
    if value is None:
        cell.error = "failed in asv"
    elif isinstance(value, float) and math.isnan(value):
        cell.skipped = "skipped in asv"
    else:
        cell.loops = int(imported.positive(loops, f"{where} stats_number")) if loops else 0
        measured = imported.all_seconds(samples, f"{where} samples") if samples else []
        cell.runs.append(ProcessRun(0, cell.loops, [], measured or [imported.seconds(value, f"{where} result")]))
        cell.estimates = estimates.estimate_cell(cell.process_values())
    return cell
