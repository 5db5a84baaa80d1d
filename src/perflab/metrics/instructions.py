"""Instructions per call, counted by valgrind's callgrind: deterministic, so sub-percent changes show.

How: the worker runs under ``valgrind --tool=callgrind --dump-before=_PyEval_GetSwitchInterval``.
It warms up, then calls ``measured_region`` with 0 calls and with N calls, each between two calls
of ``perflab.bench.worker.region.region_marker`` (whose C function is that symbol). Callgrind writes a dump at
every marker, so two dumps hold exactly the two regions, and

    instructions per call = (instructions of the N-call region - of the 0-call region) / N

Start-up, imports and set-up are never counted. String hashing is pinned (PYTHONHASHSEED=0) and
address-space randomization is turned off for the run (``setarch -R``: objects hashed by address,
such as json's circular-reference markers, otherwise collide differently from run to run; measured
here: 0.04% spread with randomization, none without), so repeated runs agree
(benchmarks/instruction_stability.py).

Instruction counts miss I/O, system calls, waiting and cache effects, so they are always paired
with the wall time of the same run; see ``disagreements``.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from perflab.analysis.counts import DISAGREEMENT_FACTOR, Disagreement, InstructionsEstimate
from perflab.metrics.count_jobs import Target, loops_for, require, run_counted_worker
from perflab.results.model import RunResult

MARKER_SYMBOL = "_PyEval_GetSwitchInterval"  # the C function behind perflab.bench.worker.region.region_marker
REPEATS = 3
# Callgrind runs Python ~50-100x slower: ~20 ms of native calls is a couple of seconds counted.
NATIVE_SECONDS = 0.02
_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


@dataclass
class InstructionCount:
    """Instructions per call of one (case, contender), one value per repeated valgrind run."""

    case: str
    contender: str
    loops: int
    per_call: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def estimate(self) -> InstructionsEstimate | None:
        """Median and range over the processes that counted (None: none did)."""
        if not self.per_call:
            return None
        return InstructionsEstimate.of(self.per_call, self.loops)

    @property
    def median(self) -> float:
        return statistics.median(self.per_call)

    @property
    def spread(self) -> float:
        estimate = self.estimate
        return estimate.spread if estimate else 0.0


def measure(
    targets: list[Target], repeats: int = REPEATS, timeout: float = 600.0, loops: int | None = None
) -> list[InstructionCount]:
    """Count every target ``repeats`` times, in separate processes (run side by side: counts do
    not depend on the machine's load)."""
    valgrind = require("valgrind", "valgrind")
    counts = [
        InstructionCount(t.case, t.contender, loops or loops_for(t.time_per_call, NATIVE_SECONDS)) for t in targets
    ]
    jobs = [(count, target) for count, target in zip(counts, targets) for _ in range(repeats)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda job: count_once(valgrind, job[1], job[0].loops, timeout), jobs))
    for (count, _), (per_call, error) in zip(jobs, outcomes):
        if error:
            count.error = count.error or error
        else:
            count.per_call.append(per_call)
    return counts


def count_once(
    valgrind: str, target: Target, loops: int, timeout: float = 600.0, randomize_addresses: bool = False
) -> tuple[float, str | None]:
    """One callgrind run of the worker: (instructions per call, None) or (nan, why it failed).
    (``randomize_addresses`` only shows what pinning them is for: benchmarks/instruction_stability.py.)"""
    regions, error = region_dumps(valgrind, target, loops, timeout, randomize_addresses=randomize_addresses)
    if regions is None:
        return float("nan"), error
    empty, full = (_total(text) for text in regions)
    return (full - empty) / loops if loops else 0.0, None


def region_dumps(
    valgrind: str,
    target: Target,
    loops: int,
    timeout: float,
    options: tuple[str, ...] = (),
    randomize_addresses: bool = False,
) -> tuple[tuple[str, str] | None, str | None]:
    """Callgrind's dumps of the 0-call and the N-call regions of one run of the worker (with
    callgrind ``options`` added, e.g. the cache simulation of perflab.metrics.cache), or (None, why
    there are none)."""
    with tempfile.TemporaryDirectory(prefix="perflab-callgrind-") as directory:
        out = Path(directory) / "callgrind.out"
        wrapper = [
            *([] if randomize_addresses else _without_aslr()),
            valgrind,
            "--tool=callgrind",
            *options,
            f"--dump-before={MARKER_SYMBOL}",
            f"--callgrind-out-file={out}",
        ]
        report = run_counted_worker(target, loops, timeout, wrapper)
        if report.error:
            return None, report.error
        regions = region_files(Path(directory))
        if regions is None:
            return None, (
                f"callgrind wrote no dumps at the region markers: {target.side.python} has no "
                f"symbol {MARKER_SYMBOL} (not CPython?)"
            )
        empty, full = regions
        return (empty.read_text(errors="replace"), full.read_text(errors="replace")), None


def _without_aslr() -> list[str]:
    """``setarch -R`` (util-linux) in front of the run, where it exists."""
    setarch = shutil.which("setarch")
    return [setarch, "-R"] if setarch else []


def region_files(directory: Path) -> tuple[Path, Path] | None:
    """The dumps of the 0-call and the N-call regions among callgrind's numbered dumps.

    The worker marks four boundaries: dumps are [start-up and warm-up, 0-call region, between,
    N-call region], then the final dump (no number) holds the exit.
    """
    numbered = sorted(directory.glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
    if len(numbered) < 4:
        return None
    return numbered[-3], numbered[-1]


def _total(text: str) -> int:
    match = _TOTALS.search(text)
    return int(match.group(1)) if match else 0


def disagreements(result: RunResult, counts: list[InstructionCount]) -> list[Disagreement]:
    """Contenders where instructions and wall time tell different stories.

    For each case, both are compared with the reference: the instruction ratio
    I(contender) / I(reference) and the time ratio T(contender) / T(reference) from the timing
    run. They disagree when one is more than ``DISAGREEMENT_FACTOR`` times the other (e.g. 0.5x
    the instructions but 1.1x the time): the difference is then in what instructions do not
    see (I/O, system calls, waiting, cache misses, memory bandwidth). With no reference to
    compare with there is no warning: instructions per second vary too much between programs.
    """
    by_cell = {(c.case, c.contender): c for c in counts if c.per_call and c.median > 0}
    found = []
    for comparison in result.comparisons:
        contender = by_cell.get((comparison.case, comparison.contender))
        reference = by_cell.get((comparison.case, comparison.reference))
        time_ratio = comparison.comparison.ratio.value
        if contender is None or reference is None or not time_ratio > 0:
            continue
        disagreement = Disagreement(
            comparison.case, comparison.contender, contender.median / reference.median, time_ratio
        )
        if disagreement.factor > DISAGREEMENT_FACTOR:
            found.append(disagreement)
    return found
