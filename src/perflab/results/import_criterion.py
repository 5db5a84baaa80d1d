"""criterion.rs results (``target/criterion``) as a perflab run.

criterion writes, for each benchmark, ``<group>/<function>/<parameter>/new/`` holding
``benchmark.json`` (its ids and declared throughput), ``sample.json`` (the raw samples: total
nanoseconds of each sample and its iteration count) and ``estimates.json`` (criterion's own
bootstrap estimates with 95% intervals). The function is the contender and the parameter (or,
without one, the group) the case, so that criterion's comparisons inside a group become
perflab's contenders on a case. The samples are kept as the values of one process run (they come
from one process); the estimates are criterion's intervals, since one process gives perflab's
cluster bootstrap nothing to resample.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perflab.results import imported_numbers as imported
from perflab.results.imported_numbers import ImpossibleNumber
from perflab.results.model import REFERENCE, Cell, Equivalence, ProcessRun, RunResult
from perflab.results.quantities import CellEstimates, Interval

_NANOSECOND = 1e-9


class NotCriterion(Exception):
    """The directory holds no criterion results; the message says what is missing."""


def is_criterion(path: Path) -> bool:
    return path.is_dir() and next(path.glob("**/new/estimates.json"), None) is not None


def load(directory: Path, benchmark: str | None = None) -> RunResult:
    """Every benchmark under ``directory`` (``target/criterion`` or one group of it), as one run
    named ``benchmark`` (default: the group, when all share one; else the directory's name)."""
    found = sorted(directory.glob("**/new/estimates.json"))
    if not found:
        raise NotCriterion(f"{directory}: no criterion results (no */new/estimates.json below it)")
    entries = [
        _entry(estimates.parent, estimates.parent.parent.relative_to(directory).as_posix()) for estimates in found
    ]
    groups = {entry["group"] for entry in entries}
    name = benchmark or (next(iter(groups)) if len(groups) == 1 else directory.name)
    metadata = {
        "python": None,
        "machine": {"cpu_model": None, "cpu_count": None, "os": None, "kernel": None, "hostname": None},
        "git": None,
        "packages": {},
        "imported_from": "criterion.rs",
        "date": None,
    }
    result = RunResult(
        benchmark=name, file=str(directory), reference=entries[0]["contender"], settings={}, metadata=metadata, work={}
    )
    for entry in entries:
        case = entry["case"] if len(groups) == 1 else f"{entry['group']}/{entry['case']}"
        values = entry["values"]
        cell = Cell(case, entry["contender"], loops=round(sum(entry["iters"]) / max(len(entry["iters"]), 1)))
        cell.runs.append(ProcessRun(0, cell.loops or 1, [], values))
        cell.estimates = CellEstimates(entry["median"], entry["mean"], 1, len(values), 0, 0)
        result.cells.append(cell)
        result.work[case] = entry["work"]
        if entry["contender"] == result.reference:  # the others' outputs were never compared: no verdict
            result.equivalence.append(Equivalence(case, entry["contender"], REFERENCE))
    return result


def _entry(directory: Path, label: str) -> dict[str, Any]:
    """One benchmark's files (``directory`` is its ``new`` folder, ``label`` the benchmark's folder)."""
    try:
        described = _read(directory / "benchmark.json")
        sample = _read(directory / "sample.json")
        estimated = _read(directory / "estimates.json")
        group = str(described["group_id"])
        function = described.get("function_id")
        parameter = described.get("value_str")
        throughput = described.get("throughput") or {}
        work = None
        if "Bytes" in throughput or "BytesDecimal" in throughput:
            work = ["B", imported.positive(throughput.get("Bytes") or throughput["BytesDecimal"], "throughput")]
        elif "Elements" in throughput:
            work = ["items", imported.positive(throughput["Elements"], "throughput")]
        where = f"benchmark {label!r}: sample.json"
        times, iters = sample["times"], sample["iters"]
        if not isinstance(times, list) or not isinstance(iters, list) or len(times) != len(iters) or not times:
            raise ImpossibleNumber(f"{where}: times and iters must be lists of one number per sample")
        per_call = [
            imported.seconds(
                float(time) / imported.positive(count, f"{where} iters[{index}]"),
                f"{where} times[{index}] / iters[{index}]",
                _NANOSECOND,
            )
            for index, (time, count) in enumerate(zip(times, iters))
        ]
        return {
            "group": group,
            "contender": str(function) if function is not None else group,
            "case": str(parameter) if parameter is not None else group,
            "values": per_call,
            "iters": [float(i) for i in iters],
            "median": _interval(estimated["median"], f"benchmark {label!r}: estimates.json median"),
            "mean": _interval(estimated["mean"], f"benchmark {label!r}: estimates.json mean"),
            "work": work,
        }
    except (KeyError, TypeError, ValueError) as error:
        raise NotCriterion(f"{directory}: not criterion output (a field is missing or wrong: {error})") from None


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise NotCriterion(f"{path}: not readable criterion output ({error})") from None


def _interval(estimate: dict[str, Any], where: str) -> Interval:
    bounds = estimate["confidence_interval"]
    return Interval(
        imported.seconds(estimate["point_estimate"], f"{where} point_estimate", _NANOSECOND),
        imported.seconds(bounds["lower_bound"], f"{where} lower_bound", _NANOSECOND),
        imported.seconds(bounds["upper_bound"], f"{where} upper_bound", _NANOSECOND),
    )
