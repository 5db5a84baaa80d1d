"""What a whole run's numbers must be read with, decided once: every surface (terminal, ``--json``,
Markdown, the HTML report, the web, the pytest plugin, check and bisect) shows ``run_warnings``
and words none of its own.

- *busy machine*: the load average reached the number of CPUs while measuring; other processes
  took CPU time from the workers, so even ratios may be off;
- *precision not reached*: the budget ran out before the stopping rule's target;
- *timing*: what the timing checks found (``metadata["timing_warnings"]``, a list of sentences:
  the value length moved the estimate, wall time and CPU time disagree, the machine's own speed
  changed (perflab.results.machine_speed); absent in older files).

``load_difference`` says why an unpaired comparison of two runs (measured at different times) has
no verdict: a busy machine in either, a machine whose own speed changed during either, or unequal
load moves times between the runs that no interleaving cancels (identical code measured at load
0.1 and at load 1.5 reads "1.15x faster").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from perflab.results import machine_speed, stopped
from perflab.units import counted, format_percent

if TYPE_CHECKING:  # the model writes these warnings into --json
    from perflab.results.model import RunResult

BUSY_MACHINE, PRECISION_MISSED, TIMING = "busy machine", "precision not reached", "timing"
# Load per CPU two runs may differ by before an unpaired comparison of them has no verdict: half a
# CPU's worth of other processes on 2 CPUs (a busy machine is one per CPU); an idle machine's
# 1-minute load average wanders by a few tenths.
LOAD_DIFFERENCE = 0.25


@dataclass(frozen=True)
class RunWarning:
    kind: str  # BUSY_MACHINE, PRECISION_MISSED or TIMING
    text: str  # the sentence every surface shows

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


def cpus(result: RunResult) -> int:
    return (result.metadata.get("machine") or {}).get("cpu_count") or 1


def worst_load(result: RunResult) -> float | None:
    """The higher load average of the run's start and end; None when neither was recorded."""
    loads = [result.metadata.get(key) for key in ("load_average_at_start", "load_average_at_end")]
    return max((load for load in loads if load is not None), default=None)


def busy(result: RunResult) -> bool:
    load = worst_load(result)
    return load is not None and load >= cpus(result)


def run_warnings(result: RunResult) -> list[RunWarning]:
    """Every warning that applies to ``result``, in the order the surfaces show them."""
    found = []
    missed = precision_missed(result)
    if missed is not None:
        found.append(missed)
    if busy(result):
        found.append(
            RunWarning(
                BUSY_MACHINE,
                f"busy machine: load average {worst_load(result):.1f} on {cpus(result)} CPUs while measuring; other "
                f"processes took CPU time from the workers{_waited(result)}, so even ratios may be off: measure "
                "again when it is idle",
            )
        )
    found += [RunWarning(TIMING, str(text)) for text in result.metadata.get("timing_warnings") or []]
    return found


def _waited(result: RunResult) -> str:
    """How long the workers waited for a CPU at worst (``metadata.waiting_for_cpu``), or ""."""
    shares = [share for case in (result.metadata.get("waiting_for_cpu") or {}).values() for share in case.values()]
    return f" (they waited for a CPU up to {format_percent(max(shares))} of their time)" if shares else ""


def precision_missed(result: RunResult) -> RunWarning | None:
    """The precision target missed by some measured cell, or None (reached, or nothing measured)."""
    decided = stopped.decided_cases(result)  # stopped on their answer, precise enough for its size
    missed = [c for c in result.cells if c.measured_runs() and not c.target_reached and c.case not in decided]
    if not missed or "precision" not in result.settings:
        return None
    budget = result.settings.get("max_time")
    return RunWarning(
        PRECISION_MISSED,
        ("not decided and " if result.settings.get("stop_when") == "answered" else "")
        + f"precision target ±{format_percent(result.settings['precision'])} NOT reached for "
        f"{counted(len(missed), 'cell')}" + (f" (budget {budget:g} s)" if budget is not None else ""),
    )


def load_difference(a: RunResult, b: RunResult) -> str | None:
    """Why an unpaired comparison of ``a`` and ``b`` has no verdict (either busy, or their loads
    per CPU differ by LOAD_DIFFERENCE or more), or None."""
    busy_runs = [name for name, run in (("A", a), ("B", b)) if busy(run)]
    if busy_runs:
        which = "both runs were" if len(busy_runs) == 2 else f"run {busy_runs[0]} was"
        return f"{which} measured on a busy machine, which moves times between runs"
    varied = [name for name, run in (("A", a), ("B", b)) if machine_speed.varied(run)]
    if varied:
        which = "both runs" if len(varied) == 2 else f"run {varied[0]}"
        return f"the machine's own speed changed during {which} by more than {machine_speed.SPREAD:.0%}, which moves times between runs"
    loads = [worst_load(run) for run in (a, b)]
    if None in loads:
        return None
    per_cpu = [load / cpus(run) for load, run in zip(loads, (a, b))]  # type: ignore[operator]
    if round(abs(per_cpu[0] - per_cpu[1]), 6) >= LOAD_DIFFERENCE:
        return (
            f"the runs were measured under different load ({loads[0]:.1f} and {loads[1]:.1f}), "
            "which moves times between runs"
        )
    return None
