"""Google Benchmark JSON (``--benchmark_format=json`` or ``--benchmark_out``) as a perflab run.

A benchmark's run name is ``FAMILY/ARGS`` (``BM_memchr/1024``): the family is the contender, the
arguments the case (``default`` without arguments), so that two families run on the same
arguments stand side by side as contenders do. Each repetition (``--benchmark_repetitions``) is
kept as one process run holding one value, the mean real time per iteration; the aggregates
Google Benchmark adds (mean, median, stddev, cv) are recomputed by perflab, not read. With two or
more repetitions the estimates carry perflab's cluster-bootstrap intervals over repetitions
(they run in one process, one after the other, so the interval does not cover what differs
between processes); with one, there is no interval, and the history says so.
"""

from __future__ import annotations

from typing import Any

from perflab.results import imported_numbers as imported
from perflab.results.model import REFERENCE, Cell, Equivalence, ProcessRun, RunResult

_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
DEFAULT_CASE = "default"
_RATES = (("B", "bytes_per_second"), ("items", "items_per_second"))
_DESCRIPTIONS = ("host_name", "date", "executable", "library_build_type")


class NotGoogleBenchmark(Exception):
    """The data is not Google Benchmark JSON; the message says what is missing."""


def is_gbench(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("context"), dict) and isinstance(data.get("benchmarks"), list)


def from_json(data: dict[str, Any], benchmark: str, file: str) -> RunResult:
    """The run of ``data`` (parsed Google Benchmark JSON), named ``benchmark``."""
    from perflab.analysis import estimates  # scipy takes ~0.6 s to import: only when a file of this kind is read

    context = data["context"]
    described = {key: imported.text(context.get(key), f"context.{key}") for key in _DESCRIPTIONS}
    cpus = context.get("num_cpus")
    load = context.get("load_avg") or [None]
    metadata = {
        "python": None,
        "machine": {
            "cpu_model": None,
            "cpu_count": int(imported.positive(cpus, "context.num_cpus")) if cpus is not None else None,
            "os": None,
            "kernel": None,
            "hostname": described["host_name"],
        },
        "git": None,
        "packages": {},
        "imported_from": "google-benchmark",
        "date": described["date"],
        "executable": described["executable"],
        "library_build_type": described["library_build_type"],
        "load_average_at_start": None if load[0] is None else imported.positive(load[0], "context.load_avg[0]"),
    }
    cells: dict[tuple[str, str], Cell] = {}
    result = RunResult(benchmark=benchmark, file=file, reference="", settings={}, metadata=metadata, work={})
    for entry in data["benchmarks"]:
        if not isinstance(entry, dict) or entry.get("run_type", "iteration") != "iteration":
            continue  # aggregates: recomputed from the repetitions
        if entry.get("error_occurred"):
            name = entry.get("run_name") or entry.get("name", "?")
            result.metadata.setdefault("errors", []).append(f"{name}: {entry.get('error_message', 'error')}")
            continue
        try:
            name = str(entry.get("run_name") or entry["name"])
            unit_seconds = _UNITS[entry.get("time_unit", "ns")]
            where = f"benchmark {name!r}:"
            seconds = imported.seconds(entry["real_time"], f"{where} real_time", unit_seconds)
            # Google Benchmark divides bytes and items by CPU time (unless UseRealTime)
            cpu_time = entry.get("cpu_time") or entry["real_time"]
            cpu_seconds = imported.seconds(cpu_time, f"{where} cpu_time", unit_seconds)
            rates = {unit: imported.positive(entry[key], f"{where} {key}") for unit, key in _RATES if entry.get(key)}
            iterations = int(imported.positive(entry["iterations"], f"{where} iterations"))
        except (KeyError, TypeError, ValueError) as error:
            raise NotGoogleBenchmark(f"a benchmark entry lacks a usable {error}") from None
        contender, _, case = name.partition("/")
        case = case or DEFAULT_CASE
        cell = cells.setdefault((case, contender), Cell(case, contender))
        cell.runs.append(ProcessRun(len(cell.runs), iterations, [], [seconds]))
        for unit, rate in rates.items():  # work per iteration, for throughput
            result.work[case] = [unit, rate * cpu_seconds]
    if not cells:
        raise NotGoogleBenchmark("no benchmark ran (no entry of run_type 'iteration')")
    result.reference = next(iter(cells.values())).contender
    for (case, contender), cell in cells.items():
        cell.loops = cell.runs[0].loops
        cell.estimates = estimates.estimate_cell(cell.process_values())
        result.cells.append(cell)
        result.work.setdefault(case, None)
        if contender == result.reference:  # the others' outputs were never compared: no verdict
            result.equivalence.append(Equivalence(case, contender, REFERENCE))
    return result
