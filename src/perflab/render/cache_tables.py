"""What ``--metric cache`` shows, as the strings the terminal, Markdown and the HTML report all lay
out (each escapes them for its format): per case, one table of counters per call with a column per
side and each side's ratio to the reference, the wall-time verdict of the same comparison beneath,
and per side the functions that miss the most."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from perflab.analysis.cache_model import NAMES, counters
from perflab.metrics import Measured, stored
from perflab.metrics.cache import CacheReading, ratio
from perflab.results.model import RunResult
from perflab.units import format_count, format_percent, format_time, format_times_factor

TITLE = "cache and branches per call, simulated (valgrind: cachegrind's simulator, in callgrind)"
NOTE = (
    "simulated, not measured on this CPU: per call = (N calls - 0 calls) / N between region markers, "
    "median of separate processes; cycles (estimate) = instructions + 10 x L1 misses + 100 x LL misses "
    "+ 10 x branch mispredictions (docs/metrics.md); spread = (max - min) / median over the processes, "
    "the largest over the counters"
)
FUNCTION_COLUMNS = ["function", "instructions", "I1 misses", "D1 misses", "LL misses", "branch mispredictions"]


@dataclass
class FunctionTable:
    contender: str
    rows: list[list[str]] = field(default_factory=list)  # in FUNCTION_COLUMNS order, most misses first
    header: list[str] = field(default_factory=lambda: list(FUNCTION_COLUMNS))


@dataclass
class CaseTable:
    case: str
    header: list[str]  # "counter", each side, then "side / reference" for each other side
    rows: list[list[str]]
    caches: list[str]  # the simulated caches' sizes
    functions: list[FunctionTable]


def stored_tables(result: RunResult) -> list[CaseTable]:
    """The tables of a run's stored ``--metric cache`` readings (none: it was not asked for)."""
    measured = stored(result)
    return case_tables(result, measured) if measured else []


def case_tables(result: RunResult, measured: Measured) -> list[CaseTable]:
    readings = measured.cache or []
    tables = []
    for case in dict.fromkeys(r.case for r in readings):
        row_of = {r.contender: r for r in readings if r.case == case and r.per_call}
        sides = list(row_of)
        reference = row_of.get(result.reference)
        others = [s for s in sides if s != result.reference] if reference else []
        header = ["counter", *sides, *(f"{s} / {result.reference}" for s in others)]
        rows = [
            [name, *(format_count(row_of[s].counters[name][0]) for s in sides)]
            + [format_times_factor(ratio(row_of[s], reference, name)) for s in others]
            for name in NAMES
        ]
        rows += _hardware_rows(row_of, sides, others)
        rows.append(["spread", *(format_percent(max(v[1] for v in row_of[s].counters.values())) for s in sides)])
        rows.append(["calls x processes", *(f"{row_of[s].loops} x {len(row_of[s].per_call)}" for s in sides)])
        rows.append(_time_row(result, case, sides, others))
        tables.append(
            CaseTable(
                case,
                header,
                [row + [""] * (len(header) - len(row)) for row in rows],
                next((r.caches for r in row_of.values()), []),
                [_functions(row_of[s]) for s in sides],
            )
        )
    return tables


def _hardware_rows(row_of: dict[str, CacheReading], sides: list[str], others: list[str]) -> list[list[str]]:
    """perf stat's real counters per call, where the machine has them (rows marked "hardware")."""
    events = list(dict.fromkeys(e for s in sides for e in (row_of[s].hardware or {})))
    return [
        [f"{event} (hardware)", *(format_count((row_of[s].hardware or {}).get(event)) for s in sides)]
        for event in events
    ]


def _time_row(result: RunResult, case: str, sides: list[str], others: list[str]) -> list[str]:
    """Wall time per call of each side, and beside each ratio its timing verdict."""
    times = {c.contender: c.estimates.median.value for c in result.cells if c.case == case and c.estimates}
    comparisons = {c.contender: c for c in result.comparisons if c.case == case}
    verdicts = []
    for side in others:
        comparison = comparisons.get(side)
        shown = result.shown(comparison) if comparison else None
        verdicts.append(f"{shown.ratio} ({shown.text})" if shown else "")
    return ["wall time", *(format_time(times[s]) if s in times else "" for s in sides), *verdicts]


def _functions(reading: CacheReading) -> FunctionTable:
    table = FunctionTable(reading.contender)
    for name, events in reading.top_functions.items():
        table.rows.append([name, *(format_count(count) for count in function_counts(events).values())])
    return table


def function_counts(events: Mapping[str, float]) -> dict[str, float]:
    """One function's own counts per call, by the function table's columns after its name."""
    named = counters(events)
    return {
        "instructions": named["instructions"],
        "I1 misses": named["I1 misses"],
        "D1 misses": named["D1 read misses"] + named["D1 write misses"],
        "LL misses": named["LL instruction misses"] + named["LL data read misses"] + named["LL data write misses"],
        "branch mispredictions": named["branch mispredictions"],
    }


def frame_note(events: Mapping[str, float]) -> str:
    """A flame graph frame's line on its C function's simulated misses (perflab.profile.simulated_cache)."""
    counts = function_counts(events)
    return (
        f"simulated per call (cachegrind, --metric cache): {format_count(counts['D1 misses'])} L1 data misses, "
        f"{format_count(counts['LL misses'])} LL misses, {format_count(counts['branch mispredictions'])} "
        f"branch mispredictions, in {format_count(counts['instructions'])} instructions of its own"
    )
