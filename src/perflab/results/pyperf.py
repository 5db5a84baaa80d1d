"""pyperf's JSON format, both ways, through pyperf's own classes.

Out (``perflab run --pyperf DIR``, ``perflab export --pyperf``): one file per contender, so that
``pyperf compare_to DIR/a.json DIR/b.json`` compares contenders case by case and
``pyperf stats DIR/a.json`` describes one. Each perflab process becomes one pyperf run with its
warmups and values (seconds per call) and its loop count.

In (``perflab import``, ``perflab check --against FILE``): read with ``pyperf.BenchmarkSuite.load``
and mapped the same way back: one pyperf benchmark per case, one pyperf run per process.
"""

from __future__ import annotations

import errno
import hashlib
import re
from pathlib import Path

import pyperf

from perflab.bench.pyperf_script import CONTENDER as PYPERF_SCRIPT
from perflab.results import imported_numbers as imported
from perflab.results.model import REFERENCE, Cell, Equivalence, ProcessRun, RunResult


def export(result: RunResult, directory: str | Path) -> list[Path]:
    """One pyperf file per contender in ``directory`` (``file_names``), never replacing a file:
    an existing one is an OSError naming it."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    contenders = list(dict.fromkeys(cell.contender for cell in result.cells))
    names = file_names(result.benchmark, contenders)
    common = run_metadata(result)
    written = []
    for contender in contenders:
        benchmarks = []
        for cell in (c for c in result.cells if c.contender == contender):
            runs = [
                pyperf.Run(
                    run.values,
                    warmups=[(run.loops, w) for w in run.warmups],
                    metadata={**common, "name": cell.case, "loops": run.loops, "unit": "second"},
                    collect_metadata=False,
                )
                for run in cell.measured_runs()
                if run.loops
            ]
            if runs:
                benchmarks.append(pyperf.Benchmark(runs))
        if benchmarks:
            path = directory / names[contender]
            if path.exists():  # pyperf's own -o refuses too; dump(replace=False) says less
                raise FileExistsError(
                    errno.EEXIST, f"{path} exists; perflab does not replace it (another folder, or remove it)"
                )
            pyperf.BenchmarkSuite(benchmarks).dump(str(path), replace=False)
            written.append(path)
    return written


def file_names(benchmark: str, contenders: list[str]) -> dict[str, str]:
    """Each contender's file in a ``--pyperf`` folder: ``CONTENDER.json``, or ``BENCHMARK.json``
    for a pyperf script, whose one contender is always ``script`` (two scripts' runs into one
    folder must not meet in one file), each name made safe (``_safe_names``)."""
    if contenders == [PYPERF_SCRIPT]:
        return {PYPERF_SCRIPT: f"{_safe_names([benchmark])[benchmark]}.json"}
    return {contender: f"{name}.json" for contender, name in _safe_names(contenders).items()}


def existing_files(directory: str | Path, benchmark: str, contenders: list[str]) -> list[Path]:
    """The files of ``export`` that already exist in ``directory``: checked before measuring."""
    return [path for name in file_names(benchmark, contenders).values() if (path := Path(directory) / name).exists()]


def run_metadata(result: RunResult) -> dict[str, object]:
    """pyperf's own metadata keys for what perflab knows of the run (``pyperf metadata`` and
    ``pyperf stats`` show them): the interpreter, the machine, the date; ``load`` reads them back."""
    python = result.metadata.get("python") or {}
    machine = result.metadata.get("machine") or {}
    known = {
        "python_implementation": str(python.get("implementation") or "").lower(),
        "python_version": python.get("version"),
        "python_executable": python.get("executable"),
        "python_compiler": python.get("compiler"),
        "cpu_model_name": machine.get("cpu_model"),
        "cpu_count": machine.get("cpu_count"),
        "platform": machine.get("os"),
        "hostname": machine.get("hostname"),
        "date": result.metadata.get("started_at"),
        "perflab_version": result.metadata.get("perflab_version"),
    }
    return {key: value for key, value in known.items() if value not in (None, "")}


def _safe_names(names: list[str]) -> dict[str, str]:
    """Each name as a file name: itself where it is a safe file name and no other name differs from
    it only in case (a case-insensitive file system would merge them); else the safe characters and
    a hash of the name, so that ``a/b`` and ``a_b`` never share a file and one overwrites the other."""
    folded = [name.lower() for name in names]
    safe_names = {}
    for name in names:
        safe = _SAFE.sub("_", name)
        if safe != name or folded.count(name.lower()) > 1:
            safe = f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"
        safe_names[name] = safe
    taken = [safe.lower() for safe in safe_names.values()]
    # a name equal to another's hashed name: the full hash then
    return {
        name: safe if taken.count(safe.lower()) == 1 else f"{safe}-{hashlib.sha256(name.encode()).hexdigest()}"
        for name, safe in safe_names.items()
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
