"""What this runner can detect: the smallest change the paired gate calls, with 80% power, from an
interleaved A/A run on the machine (``perflab qualify``).

An A/A run times one contender against itself exactly as ``perflab check --against REV`` times two
revisions: one worker per side in every round, values alternating, one log ratio per round. On
identical code the spread of those ratios over rounds is the machine's noise for that case, and
the number of rounds the budget bought is what the gate will have. The gate calls a change when
its t test over rounds is significant after the Benjamini-Hochberg correction and the estimate is
beyond ``--min-effect`` (``estimates.verdict``). For a true log change d the estimate is about
d + se * T (T a Student t over rounds - 1 degrees of freedom), so the change is called with
probability ``POWER`` once

    d >= max(log(1 + min_effect), t_crit * se) + t_POWER * se

t_crit is the two-sided quantile at alpha / cells: one real change among ``cells`` compared is
rejected by Benjamini-Hochberg at rank one, that is at alpha / cells. se is the noise over
sqrt(rounds), and the noise used is an upper confidence bound of the A/A's spread: one A/A run of
ten rounds estimates it only to about +-25%, and a floor from a lucky quiet run would promise more
than the gate delivers. Checked by simulation in tests/simulation/test_detectable.py.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from scipy import special

from perflab.analysis.intervals import t_quantile
from perflab.results.model import RunResult
from perflab.results.quantities import Comparison
from perflab.units import format_times_factor

POWER = 0.8
# One-sided confidence of the upper bound of the noise that the floor is computed from.
NOISE_CONFIDENCE = 0.8


@dataclass(frozen=True)
class Floor:
    """The smallest change the gate detects on one (case, contender) of this machine."""

    case: str
    contender: str
    rounds: int  # rounds the A/A run measured within the budget
    noise: float  # standard deviation of its per-round log ratios
    change: float  # the smallest time ratio (> 1, either direction) called with POWER; inf: too few rounds

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Floor:
        return cls(data["case"], data["contender"], data["rounds"], data["noise"], data["change"] or math.inf)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "change": self.change if math.isfinite(self.change) else None}


@dataclass(frozen=True)
class Qualification:
    """The floors of one benchmark on one machine, and the gate settings they hold for."""

    benchmark: str
    machine: dict[str, Any]  # as in a run's metadata; stored by its fingerprint
    max_time: float  # the budget of each A/A run (one per contender), as the gate's per contender
    alpha: float
    min_effect: float
    floors: list[Floor] = field(default_factory=list)
    created: float = 0.0  # unix time it was stored

    def floor(self, case: str, contender: str) -> Floor | None:
        return next((f for f in self.floors if (f.case, f.contender) == (case, contender)), None)

    def detects(self, case: str, contender: str) -> str | None:
        """What every output says beside a "no detectable difference": 'this runner detects >= 1.03x
        at 60 s' (None: not qualified for that cell, or too few rounds to say)."""
        floor = self.floor(case, contender)
        if floor is None or not math.isfinite(floor.change):
            return None
        return f"this runner detects >= {format_times_factor(floor.change)} at {self.max_time:g} s"

    @classmethod
    def from_json(cls, data: dict[str, Any], created: float = 0.0) -> Qualification:
        floors = [Floor.from_json(f) for f in data["floors"]]
        return cls(
            data["benchmark"], data["machine"], data["max_time"], data["alpha"], data["min_effect"], floors, created
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "machine": self.machine,
            "max_time": self.max_time,
            "alpha": self.alpha,
            "min_effect": self.min_effect,
            "floors": [f.to_json() for f in self.floors],
        }


def noise_bound(noise: float, rounds: int) -> float:
    """The NOISE_CONFIDENCE upper confidence bound of a standard deviation estimated from ``rounds`` values."""
    df = rounds - 1
    # chdtri(df, c) is chi2's (1 - c) quantile: the noise's upper bound at one-sided confidence c
    return noise * math.sqrt(df / float(special.chdtri(df, NOISE_CONFIDENCE)))


def detectable_change(noise: float, rounds: int, alpha: float, min_effect: float, cells: int) -> float:
    """The smallest time ratio (> 1) the paired gate calls faster or slower with POWER, for
    per-round log ratios of standard deviation ``noise`` (an A/A's) over ``rounds`` rounds."""
    if rounds < 2 or not math.isfinite(noise):
        return math.inf
    df = rounds - 1
    se = noise_bound(noise, rounds) / math.sqrt(rounds)
    critical = t_quantile(df, 1 - alpha / (2 * max(cells, 1)))
    log_change = max(math.log1p(min_effect), critical * se) + t_quantile(df, POWER) * se
    return math.exp(log_change)


def floor_of(case: str, contender: str, aa: Comparison, alpha: float, min_effect: float, cells: int) -> Floor:
    """The floor of one cell from its A/A comparison (the ratio of a contender to itself)."""
    noise = aa.log_se * math.sqrt(aa.pairs) if aa.pairs >= 2 else math.inf
    return Floor(case, contender, aa.pairs, noise, detectable_change(noise, aa.pairs, alpha, min_effect, cells))


def qualify(aa_runs: list[RunResult], max_time: float, alpha: float, min_effect: float) -> Qualification:
    """The floors of every (case, contender) of A/A runs, one run per contender whose two sides are
    that contender, as the paired gate measures one contender at a time (its verdicts are corrected
    across all the cells, so the floors are too)."""
    compared = [(run, c) for run in aa_runs for c in run.comparisons]
    floors = [
        floor_of(c.case, run.sides[c.contender]["contender"], c.comparison, alpha, min_effect, len(compared))
        for run, c in compared
    ]
    machine = aa_runs[0].metadata.get("machine") or {} if aa_runs else {}
    return Qualification(aa_runs[0].benchmark if aa_runs else "", machine, max_time, alpha, min_effect, floors)
