"""How much the machine's own speed changed while a run measured, from the probe every worker
times beside its values (perflab.bench.worker.speed_probe: the same fixed work everywhere).

A shared host changes a virtual CPU's speed with no trace in the load average, the run queue or
the stolen time: on this project's VM a fixed loop took 9.5 ms and 17 ms a second apart, in CPU
time as in wall time, with nothing else running. Values interleaved in one run see it alike and
pair it out; an absolute time does not, nor does any comparison of times taken at different
moments (a stored baseline, another tool's run). So the run states the spread, and an unpaired
comparison of two runs (perflab.results.warnings.load_difference) withholds its verdict.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perflab.units import format_percent, format_time

if TYPE_CHECKING:
    from perflab.results.model import RunResult

# The slower tenth of worker processes this much slower at the probe than the faster tenth: a
# quiet machine's processes differ by a few percent (the probe's own noise); this VM's, by 70%.
SPREAD = 0.10
MIN_PROCESSES = 6  # fewer processes with probes than this: no spread stated


@dataclass(frozen=True)
class MachineSpeed:
    fast: float  # CPU s of the probe: the 10th percentile of the processes' medians
    slow: float  # the 90th percentile
    processes: int

    @property
    def spread(self) -> float:
        return self.slow / self.fast - 1

    def to_json(self) -> dict[str, float | int]:
        return {"probe_fast": self.fast, "probe_slow": self.slow, "spread": self.spread, "processes": self.processes}


def measure(result: RunResult) -> MachineSpeed | None:
    """The spread of the probe over the run's worker processes (each by its median), or None."""
    medians = [statistics.median(run.probes) for cell in result.cells for run in cell.runs if run.probes]
    if len(medians) < MIN_PROCESSES or min(medians) <= 0:
        return None
    deciles = statistics.quantiles(medians, n=10, method="inclusive")
    return MachineSpeed(deciles[0], deciles[-1], len(medians))


def record(result: RunResult) -> None:
    """``metadata.machine_speed``, and a timing warning where the speed changed by more than SPREAD."""
    speed = measure(result)
    if speed is None:
        return
    result.metadata["machine_speed"] = speed.to_json()
    if speed.spread > SPREAD:
        result.metadata.setdefault("timing_warnings", []).append(
            f"the machine's own speed changed during the run: the same fixed work took {format_time(speed.slow)} "
            f"in the slower tenth of worker processes and {format_time(speed.fast)} in the faster tenth "
            f"(+{format_percent(speed.spread)}); values interleaved in this run pair it out, but its absolute "
            "times, and comparisons with times taken at another moment, can be off by as much or more"
        )


def varied(result: RunResult) -> bool:
    """Whether ``result`` says its machine's speed changed by more than SPREAD (older files: no)."""
    spread = (result.metadata.get("machine_speed") or {}).get("spread")
    return spread is not None and spread > SPREAD
