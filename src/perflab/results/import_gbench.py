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

from perflab.results.model import REFERENCE, Cell, Equivalence, ProcessRun, RunResult

_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
DEFAULT_CASE = "default"
_RATES = (("B", "bytes_per_second"), ("items", "items_per_second"))


class NotGoogleBenchmark(Exception):
    """The data is not Google Benchmark JSON; the message says what is missing."""


def is_gbench(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("context"), dict) and isinstance(data.get("benchmarks"), list)


def from_json(data: dict[str, Any], benchmark: str, file: str) -> RunResult:
    """The run of ``data`` (parsed Google Benchmark JSON), named ``benchmark``."""
    from perflab.analysis import estimates  # scipy takes ~0.6 s to import: only when a file of this kind is read

    context = data["context"]
    metadata = {
        "python": None,
        "machine": {
            "cpu_model": None,
            "cpu_count": context.get("num_cpus"),
            "os": None,
            "kernel": None,
            "hostname": context.get("host_name"),
        },
        "git": None,
        "packages": {},
        "imported_from": "google-benchmark",
        "date": context.get("date"),
        "executable": context.get("executable"),
        "library_build_type": context.get("library_build_type"),
        "load_average_at_start": (context.get("load_avg") or [None])[0],
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
            seconds = float(entry["real_time"]) * unit_seconds
            # Google Benchmark divides bytes and items by CPU time (unless UseRealTime)
            cpu_seconds = float(entry.get("cpu_time") or entry["real_time"]) * unit_seconds
            rates = {unit: float(entry[key]) for unit, key in _RATES if entry.get(key)}
            iterations = int(entry["iterations"])
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
