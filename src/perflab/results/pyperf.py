"""pyperf's JSON format, both ways, through pyperf's own classes.

Out (``perflab run --pyperf DIR``, ``perflab export --pyperf``): one file per contender, so that
``pyperf compare_to DIR/a.json DIR/b.json`` compares contenders case by case and
``pyperf stats DIR/a.json`` describes one. Each perflab process becomes one pyperf run with its
warmups and values (seconds per call) and its loop count.

In (``perflab import``, ``perflab check --against FILE``): read with ``pyperf.BenchmarkSuite.load``
and mapped the same way back: one pyperf benchmark per case, one pyperf run per process.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pyperf

from perflab.results import imported_numbers as imported
from perflab.results.model import REFERENCE, Cell, Equivalence, ProcessRun, RunResult


def export(result: RunResult, directory: str | Path) -> list[Path]:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    contenders = list(dict.fromkeys(cell.contender for cell in result.cells))
    names = file_names(contenders)
    for contender in contenders:
        benchmarks = []
        for cell in (c for c in result.cells if c.contender == contender):
            runs = [
                pyperf.Run(
                    run.values,
                    warmups=[(run.loops, w) for w in run.warmups],
                    metadata={"name": cell.case, "loops": run.loops, "unit": "second"},
                    collect_metadata=False,
                )
                for run in cell.measured_runs()
                if run.loops
            ]
            if runs:
                benchmarks.append(pyperf.Benchmark(runs))
        if benchmarks:
            path = directory / f"{names[contender]}.json"
            suite = pyperf.BenchmarkSuite(benchmarks)
            suite.dump(str(path), replace=True)
            written.append(path)
    return written


def file_names(contenders: list[str]) -> dict[str, str]:
    """Each contender's file name (without .json): the name itself where it is a safe file name and
    no other contender's differs from it only in case (a case-insensitive file system would merge
    them); else the safe characters and a hash of the name, so that ``a/b`` and ``a_b`` never share
    a file and one overwrites the other."""
    folded = [name.lower() for name in contenders]
    names = {}
    for contender in contenders:
        safe = _SAFE.sub("_", contender)
        if safe != contender or folded.count(contender.lower()) > 1:
            safe = f"{safe}-{hashlib.sha256(contender.encode()).hexdigest()[:12]}"
        names[contender] = safe
    taken = [name.lower() for name in names.values()]
    # a contender named as another's hashed name: the full hash then
    return {
        contender: name
        if taken.count(name.lower()) == 1
        else f"{name}-{hashlib.sha256(contender.encode()).hexdigest()}"
        for contender, name in names.items()
    }


_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


class NotPyperf(Exception):
    """The file is not pyperf JSON; the message says what pyperf said."""


def load(path: Path, benchmark: str, contender: str) -> RunResult:
    """A pyperf JSON file as a run of ``benchmark`` with one contender."""
    try:
        suite = pyperf.BenchmarkSuite.load(str(path))
    except Exception as error:
        raise NotPyperf(f"{type(error).__name__}: {error}") from None
    return from_suite(suite, benchmark, contender, str(path))


def from_suite(suite: pyperf.BenchmarkSuite, benchmark: str, contender: str, file: str) -> RunResult:
    from perflab.analysis import estimates  # scipy takes ~0.6 s to import: only when a file of this kind is read

    first = suite.get_benchmarks()[0]
    meta = first.get_metadata()
    metadata = {
        "python": {
            "implementation": meta.get("python_implementation"),
            "version": str(meta.get("python_version", "")).split(" ")[0] or None,
            "build": meta.get("python_compiler"),
        },
        "machine": {
            "cpu_model": meta.get("cpu_model_name"),
            "cpu_count": meta.get("cpu_count"),
            "os": meta.get("platform"),
            "kernel": None,
            "hostname": meta.get("hostname"),
        },
        "git": None,
        "packages": {},
        "imported_from": "pyperf",
        "date": meta.get("date"),
    }
    result = RunResult(benchmark=benchmark, file=file, reference=contender, settings={}, metadata=metadata, work={})
    for bench in suite.get_benchmarks():
        cell = Cell(bench.get_name(), contender)
        where = f"benchmark {cell.case!r}:"
        if bench.get_unit() != "second":
            raise imported.ImpossibleNumber(f"{where} its values are in {bench.get_unit()}s; perflab imports times")
        for index, run in enumerate(bench.get_runs()):
            if run.values:
                loops = run.get_loops()
                warmups = imported.all_seconds(
                    [value for _, value in run.warmups or ()], f"{where} run {index} warmups"
                )
                values = imported.all_seconds(run.values, f"{where} run {index} values")
                cell.runs.append(ProcessRun(index, loops, warmups, values))
        if cell.process_values():
            cell.estimates = estimates.estimate_cell(cell.process_values())
            cell.loops = cell.runs[0].loops
        result.cells.append(cell)
        result.equivalence.append(Equivalence(cell.case, contender, REFERENCE))
        result.work[cell.case] = None
    return result
