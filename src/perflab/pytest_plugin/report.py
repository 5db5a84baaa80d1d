"""What a pytest session's benchmarks become: perflab runs for the store, pytest-benchmark's JSON,
and the lines of the terminal summary.

In the store, every test file is one benchmark named ``pytest:<path from the rootdir>``; its cases
are the benchmarked tests (with their parameters) and its contenders are ``benchmark`` for a plain
call, or the names given to ``benchmark.compare``. A value block (perflab.pytest_plugin.sampling)
is stored as one ``ProcessRun``: estimates, history and the gate then treat blocks as their units,
exactly as the in-process statistics did.
"""

from __future__ import annotations

import contextlib
import json
import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perflab import __version__
from perflab.analysis import estimates
from perflab.pytest_plugin.benchmark_api import Measured, Record, ValueStats
from perflab.pytest_plugin.sampling import blocks_of
from perflab.results.model import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    REFERENCE,
    CaseComparison,
    Cell,
    Equivalence,
    ProcessRun,
    RunResult,
)
from perflab.results.quantities import Interval

if TYPE_CHECKING:  # the memory metric's modules come in only when it was measured
    from perflab.metrics.memory import MemoryUse

SESSION_SCHEMA = "perflab.pytest/1"
PYTEST_BENCHMARK_FORMAT_VERSION = "5.3.1"  # the pytest-benchmark release whose JSON layout is written
IN_PROCESS_NOTE = (
    "in-process timing: every value comes from one pytest process (with --perflab-rev, each revision's own), "
    "and the 95% intervals "
    "treat blocks of consecutive values as independent; they see drift during a test, not "
    "the variation between processes (memory layout, hash seed) that `perflab run` measures"
)


# What benchmark.compare does not check of a speedup: outputs are compared on the test's one set of
# arguments, which every timed call then repeats, so a memo cache would pass as a speedup.
COMPARE_UNCHECKED = (
    "outputs compared on the test's arguments only, each timed call repeats them: not checked for repeat-only speed"
)


def unchecked(record: Record) -> str:
    """What a record's comparisons rest on unchecked: its own note (--perflab-rev's, when the
    revisions' outputs could not be compared), else benchmark.compare's (which holds for revisions
    too: their outputs are compared on the test's arguments, which every timed call repeats)."""
    return record.unchecked or COMPARE_UNCHECKED


def benchmark_name(test_file: str, rootdir: Path) -> str:
    path = Path(test_file)
    with contextlib.suppress(ValueError):
        path = path.relative_to(rootdir)
    return f"pytest:{path.as_posix()}"


def run_results(records: list[Record], rootdir: Path, metadata: dict[str, Any]) -> list[RunResult]:
    """One perflab run per test file, in the order the files were first benchmarked."""
    by_file: dict[str, list[Record]] = {}
    for record in records:
        by_file.setdefault(record.test_file, []).append(record)
    return [_run_result(file, grouped, rootdir, metadata) for file, grouped in by_file.items()]


def _run_result(test_file: str, records: list[Record], rootdir: Path, metadata: dict[str, Any]) -> RunResult:
    result = RunResult(
        benchmark=benchmark_name(test_file, rootdir),
        file=test_file,
        reference=records[0].contenders[0].contender,
        settings=records[0].options,
        metadata={**metadata, "timing": "in-process (pytest plugin)"},
        work={record.name: None for record in records},
    )
    memory: list[MemoryUse] = []  # --perflab-metric memory: stored as `perflab run --metric memory` stores it
    for record in records:
        for measured in record.contenders:
            runs = [
                ProcessRun(
                    round=index, loops=measured.loops, warmups=measured.warmups if index == 0 else [], values=block
                )
                for index, block in enumerate(blocks_of(measured.values))
            ]
            cell_estimates = measured.estimates
            result.cells.append(
                Cell(
                    record.name,
                    measured.contender,
                    runs,
                    measured.loops,
                    estimates=cell_estimates,
                    target_reached=bool(
                        cell_estimates and cell_estimates.median.relative_half_width <= record.options["precision"]
                    ),
                )
            )
            if measured.memory is not None:
                memory.append(measured.memory)
        if record.comparisons:
            reference = record.contenders[0].contender
            if record.comparator is not None:  # outputs compared (benchmark.compare), equal or the test failed
                result.equivalence.append(Equivalence(record.name, reference, REFERENCE, comparator=record.comparator))
            for outcome in record.comparisons:
                if record.comparator is not None:
                    status = EQUIVALENT if outcome.difference is None else NOT_EQUIVALENT
                    result.equivalence.append(
                        Equivalence(
                            record.name,
                            outcome.name,
                            status,
                            difference=outcome.difference,
                            comparator=record.comparator,
                        )
                    )
                assert outcome.comparison is not None and outcome.p_adjusted is not None and outcome.verdict
                result.comparisons.append(
                    CaseComparison(
                        record.name,
                        outcome.name,
                        reference,
                        outcome.comparison,
                        outcome.p_adjusted,
                        outcome.verdict,
                        valid=outcome.difference is None,
                        unchecked=unchecked(record),
                    )
                )
    if memory:
        from perflab import metrics

        result.metrics = metrics.Measured(memory=memory).to_json()
    return result


def save_session(runs: list[RunResult], path: str | Path) -> None:
    """``--perflab-json``: every run of the session, readable by ``--perflab-against FILE``."""
    Path(path).write_text(
        json.dumps({"schema": SESSION_SCHEMA, "runs": [run.to_json() for run in runs]}, indent=1) + "\n"
    )


def load_runs(path: str | Path) -> list[RunResult]:
    """Runs saved by ``--perflab-json`` (or one ``perflab run --json`` file)."""
    data = json.loads(Path(path).read_text())
    if isinstance(data, dict) and data.get("schema") == SESSION_SCHEMA:
        return [RunResult.from_json(run) for run in data["runs"]]
    return [RunResult.from_json(data)]


def pytest_benchmark_json(records: list[Record], metadata: dict[str, Any]) -> dict[str, Any]:
    """``--benchmark-json``: pytest-benchmark's layout (machine_info, commit_info, benchmarks with
    their stats and raw data), so that tools reading its files keep working. perflab's intervals
    go in an extra "perflab" key of each benchmark."""
    benchmarks = []
    for record in records:
        compared = {outcome.name: outcome for outcome in record.comparisons}
        for measured in record.contenders:
            if not measured.values:
                continue
            several = len(record.contenders) > 1
            entry: dict[str, Any] = {
                "group": record.group or (record.name if several else None),
                "name": f"{record.name}::{measured.contender}" if several else record.name,
                "fullname": f"{record.fullname}::{measured.contender}" if several else record.fullname,
                "params": record.params,
                "param": record.param,
                "extra_info": record.extra_info,
                "options": record.options,
                "stats": {
                    **ValueStats(measured.values).as_dict(),
                    "data": measured.values,
                    "iterations": measured.loops,
                },
                "perflab": _perflab_fields(measured, compared.get(measured.contender)),
            }
            if measured.cprofile is not None:
                entry["cprofile"] = _cprofile_rows(measured.cprofile)
            benchmarks.append(entry)
    git = metadata.get("git") or {}
    return {
        "machine_info": {
            "node": platform.node(),
            "processor": platform.processor(),
            "machine": platform.machine(),
            "python_compiler": platform.python_compiler(),
            "python_implementation": platform.python_implementation(),
            "python_implementation_version": platform.python_version(),
            "python_version": platform.python_version(),
            "python_build": list(platform.python_build()),
            "release": platform.release(),
            "system": platform.system(),
            "cpu": {
                "brand_raw": (metadata.get("machine") or {}).get("cpu_model"),
                "count": (metadata.get("machine") or {}).get("cpu_count"),
            },
        },
        "commit_info": {"id": git.get("commit"), "dirty": git.get("dirty"), "branch": git.get("branch")},
        "benchmarks": benchmarks,
        "datetime": datetime.now(timezone.utc).isoformat(),
        "version": PYTEST_BENCHMARK_FORMAT_VERSION,
        "perflab_version": __version__,
        "perflab_note": IN_PROCESS_NOTE,
    }


def _perflab_fields(measured: Measured, outcome) -> dict[str, Any]:
    fields: dict[str, Any] = {"timing": "in-process"}
    cell_estimates = measured.estimates
    if cell_estimates is not None:
        fields.update(
            median=_interval(cell_estimates.median),
            mean=_interval(cell_estimates.mean),
            blocks=cell_estimates.processes,
            outlier_values=cell_estimates.outlier_values,
        )
    if outcome is not None and outcome.comparison is not None:
        fields.update(
            ratio_to_reference=_interval(outcome.ratio),
            p_adjusted=outcome.p_adjusted,
            verdict=outcome.verdict,
            valid=outcome.difference is None,  # False: outputs differ (--perflab-rev), as compare --rev's JSON says
        )
        if outcome.difference is not None:
            fields["not_equivalent"] = outcome.difference
    if measured.memory is not None:
        from perflab.pytest_plugin.memory_per_call import as_json

        fields["memory"] = as_json(measured.memory)
    return fields


def _interval(interval: estimates.Interval) -> dict[str, float | None]:
    return {
        key: value if value == value and abs(value) != float("inf") else None
        for key, value in (("value", interval.value), ("low", interval.low), ("high", interval.high))
    }


def _cprofile_rows(profile) -> list[dict[str, Any]]:
    """The 25 functions with the largest cumulative time, in pytest-benchmark's field names."""
    rows = []
    for (filename, line, function), (_, calls, tottime, cumtime, _) in profile.stats.items():
        rows.append(
            {
                "ncalls": calls,
                "tottime": tottime,
                "cumtime": cumtime,
                "tottime_per": tottime / calls if calls else 0.0,
                "cumtime_per": cumtime / calls if calls else 0.0,
                "function_name": f"{filename}:{line}({function})",
            }
        )
    return sorted(rows, key=lambda row: row["cumtime"], reverse=True)[:25]


def summary_lines(records: list[Record]) -> list[str]:
    """One line per measured contender: median with its interval, values, outliers; verdicts."""
    from perflab.results.verdicts import show
    from perflab.units import counted, format_times

    lines = []
    for record in records:
        compared = {outcome.name: outcome for outcome in record.comparisons}
        for measured in record.contenders:
            cell_estimates = measured.estimates
            label = record.name if len(record.contenders) == 1 else f"{record.name} [{measured.contender}]"
            if cell_estimates is None:
                lines.append(f"{label}: not timed")
                continue
            median = cell_estimates.median
            line = (
                f"{label}: {format_times(median.value, median.low, median.high)} per call (95% CI), "
                f"{cell_estimates.values} values x {measured.loops} calls, {counted(cell_estimates.outlier_values, 'outlier')} (kept)"
            )
            outcome = compared.get(measured.contender)
            if outcome is not None and outcome.comparison is not None:
                # benchmark.compare fails the test on outputs that differ; --perflab-rev shows the
                # revision's ratio invalid, as compare --rev does.
                p_adjusted = 1.0 if outcome.p_adjusted is None else outcome.p_adjusted
                shown = show(
                    outcome.comparison.ratio,
                    outcome.verdict or "",
                    p_adjusted,
                    None if outcome.difference is None else NOT_EQUIVALENT,
                    None,
                    unchecked=unchecked(record),
                    level=(record.options["alpha"], record.options["min_effect"]),
                )
                line += f"; vs {record.contenders[0].contender}: {shown.ratio}, verdict: {shown.text}"
            lines.append(line)
            if outcome is not None and outcome.difference is not None:
                lines.append(f"  {NOT_EQUIVALENT} to {record.contenders[0].contender}: {outcome.difference}")
            if measured.memory is not None:
                lines.append(_memory_line(measured.memory, record))
        if record.note:
            lines.append(f"  note: {record.note}")
    return lines


def group_tables(records: list[Record]) -> list[str]:
    """pytest-benchmark's per-group table, the one its users read first: each group's measured
    benchmarks (every contender of a ``benchmark.compare`` a row), fastest first, each median with
    its interval and its ratio to the fastest's median. A ratio of medians of separate
    measurements, not a paired comparison: the table says so, and gives no verdict."""
    from perflab.units import format_times, format_times_factor

    groups: dict[str | None, list[tuple[str, Interval]]] = {}
    for record in records:
        for measured in record.contenders:
            if measured.estimates is not None:
                label = record.name if len(record.contenders) == 1 else f"{record.name} [{measured.contender}]"
                groups.setdefault(record.group, []).append((label, measured.estimates.median))
    lines = []
    for group, rows in groups.items():
        if len(rows) < 2:
            continue
        rows.sort(key=lambda row: row[1].value)
        fastest = rows[0][1].value
        texts = [(label, format_times(m.value, m.low, m.high)) for label, m in rows]
        width, time_width = max(len(label) for label, _ in texts), max(len(text) for _, text in texts)
        lines.append(f"group {group!r}: " if group is not None else "benchmarks without a group: ")
        lines[-1] += "fastest first; relative = median / the fastest's median (separate measurements, no verdict)"
        lines.append(f"  {'name':<{width}}  {'median [95% CI]':<{time_width}}  relative")
        for (label, text), (_, median) in zip(texts, rows):
            lines.append(f"  {label:<{width}}  {text:<{time_width}}  {format_times_factor(median.value / fastest)}")
    return lines


def warning_lines(runs: list[RunResult]) -> list[str]:
    """Each run's warnings (perflab.results.warnings.run_warnings), once per sentence, naming the
    test files when only some of the session's have it."""
    from perflab.results.warnings import run_warnings

    found: dict[str, list[str]] = {}
    for run in runs:
        for warning in run_warnings(run):
            found.setdefault(warning.text, []).append(run.benchmark)
    return [
        f"warning: {text}" if len(names) == len(runs) else f"warning ({', '.join(names)}): {text}"
        for text, names in found.items()
    ]


def _memory_line(use: MemoryUse, record: Record) -> str:
    """``--perflab-metric memory``: the figures of ``perflab run --metric memory``'s table, and
    beside a compared contender the memory verdict against the reference."""
    from perflab.pytest_plugin.memory_per_call import RUNS_NOTE
    from perflab.results.verdicts import show_memory
    from perflab.units import format_bytes, format_bytes_range

    if use.error or use.allocated is None or use.peak is None:
        return f"  memory: {use.error or 'not measured'}"
    line = (
        f"  memory: {format_bytes_range(use.allocated.value, use.allocated.low, use.allocated.high)} allocated/call, "
        f"peak {format_bytes_range(use.peak.value, use.peak.low, use.peak.high)}"
    )
    if use.retained_per_call is not None:
        line += f", retained/call {format_bytes(use.retained_per_call)}"
    line += f" (memray, {RUNS_NOTE}, {use.allocation_loops:,} calls each"
    line += "; retained: tracemalloc)" if use.retained_per_call is not None else ")"
    reference = record.contenders[0].memory
    if use is not reference and reference is not None and reference.allocated_per_call and use.allocated_per_call:
        shown = show_memory(use.allocated_per_call, reference.allocated_per_call, record.options["min_effect"])
        line += f"; allocated/call vs {record.contenders[0].contender}: {shown.ratio}, memory verdict: {shown.text}"
    return line
