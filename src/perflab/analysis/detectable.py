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

With the stopping rule on the answer (the defaults; perflab.measure.stopping) the gate's p-values
are anytime-valid: t_crit * se becomes the confidence sequence's half-width at level alpha / cells;
and since check --against then stops once a regression beyond ``--threshold`` is excluded, the
slowdown it calls is a regression, beyond the threshold by that margin:
d >= log(1 + threshold) + half-width + t_POWER * se (qualify takes the check's --threshold for it).

The same inequality, solved for the rounds instead of the change, projects the budget that would
detect a smaller change (``rounds_to_detect``): se falls as 1/sqrt(rounds) and rounds grow with
the budget at the rate the A/A run measured. The noise's upper bound stays the A/A run's (what is
known of the noise does not grow with the check's budget). The check must also not stop early on
``--precision``: the precision projected with the budget is the interval's half-width at the
projected rounds for a lower confidence bound of the noise, so that the run stops early only on a
machine quieter than the A/A's suggested (stopping on a lucky quiet stretch cost power: 77% instead
of 80% in the heavy-tailed simulation with the point estimate).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from scipy import special

from perflab.analysis import sequential
from perflab.analysis.intervals import t_quantile
from perflab.results.model import RunResult
from perflab.results.quantities import Comparison
from perflab.units import format_budget, format_percent

POWER = 0.8
# One-sided confidence of the upper bound of the noise that the floor is computed from.
NOISE_CONFIDENCE = 0.8
# Beyond this many rounds a projected budget is not worth stating (over 100x a typical A/A run).
MAX_PROJECTED_ROUNDS = 10_000
# An A/A run that ended before this fraction of its budget was stopped by --precision: the floor
# is what that precision buys, and a longer --max-time alone would not lower it.
USED_BUDGET = 0.8


def format_change(change: float) -> str:
    """A floor as every output says it: the time ratio 1.031 (either direction) -> '3.1%', as
    --threshold and --min-effect are given."""
    return format_percent(change - 1)


@dataclass(frozen=True)
class Projection:
    """The budget at which the gate would detect ``change`` with POWER, and the precision that lets
    the run reach it."""

    change: float  # a time ratio > 1
    max_time: float  # seconds per contender, as --max-time
    precision: float  # as --precision, a fraction

    def text(self, budget: float) -> str:
        """'1.6% needs ~240 s (--max-time 240 --precision 0.52)'; within ``budget`` (the check's
        --max-time) only the precision stands in the way: '1.4% needs --precision 0.4 (~7 s)'."""
        change, precision = format_change(self.change), f"--precision {self.precision * 100:.2g}"
        if self.max_time <= budget:
            return f"{change} needs {precision} (~{format_budget(self.max_time)})"
        return f"{change} needs ~{format_budget(self.max_time)} (--max-time {self.max_time:.0f} {precision})"


@dataclass(frozen=True)
class Floor:
    """The smallest change the gate detects on one (case, contender) of this machine."""

    case: str
    contender: str
    rounds: int  # rounds the A/A run measured within the budget
    noise: float  # standard deviation of its per-round log ratios
    change: float  # the smallest time ratio (> 1, either direction) called with POWER; inf: too few rounds
    seconds: float  # the A/A run's timing that bought ``rounds``: how the rounds grow with the budget

    @classmethod
    def from_json(cls, data: dict[str, Any], max_time: float) -> Floor:
        # (Stored before the seconds were: the run took its budget, ``max_time``.)
        seconds = data.get("seconds", max_time)
        return cls(data["case"], data["contender"], data["rounds"], data["noise"], data["change"] or math.inf, seconds)

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
    threshold: float | None = None  # the gate's --threshold the floors are for (None: stored before it was)

    def floor(self, case: str, contender: str) -> Floor | None:
        return next((f for f in self.floors if (f.case, f.contender) == (case, contender)), None)

    def detects(self, case: str, contender: str, threshold: float) -> str | None:
        """What every output says beside a "no detectable difference": 'this runner detects >= 3.1%
        at 60 s; 1.6% needs ~240 s (--max-time 240 --precision 0.52)' (None: not qualified for that
        cell, or too few rounds to say). ``threshold``: the check's, see ``projected_change``."""
        floor = self.floor(case, contender)
        if floor is None or not math.isfinite(floor.change):
            return None
        text = f"this runner detects >= {format_change(floor.change)} at {format_budget(self.max_time)}"
        if floor.seconds < USED_BUDGET * self.max_time:  # the floor is --precision's, not the budget's
            text += f" (its A/A reached --precision in ~{format_budget(floor.seconds)})"
        projection = self.projection(floor, threshold)
        if projection is not None:
            return f"{text}; {projection.text(self.max_time)}"
        if projected_change(floor.change, threshold) <= 1 + self.min_effect:
            return f"{text}; smaller changes are within --min-effect {format_percent(self.min_effect)}"
        return text

    def projection(self, floor: Floor, threshold: float) -> Projection | None:
        """The budget that detects ``projected_change`` on the floor's cell (None: no budget does,
        within MAX_PROJECTED_ROUNDS)."""
        change = projected_change(floor.change, threshold)
        args = (self.alpha, self.min_effect, len(self.floors))
        rounds = rounds_to_detect(change, floor.noise, floor.rounds, *args)
        if rounds is None:
            return None
        seconds = _round_up(rounds * floor.seconds / floor.rounds)
        return Projection(change, seconds, projected_precision(floor.noise, floor.rounds, rounds))

    @classmethod
    def from_json(cls, data: dict[str, Any], created: float = 0.0) -> Qualification:
        floors = [Floor.from_json(f, data["max_time"]) for f in data["floors"]]
        return cls(
            data["benchmark"],
            data["machine"],
            data["max_time"],
            data["alpha"],
            data["min_effect"],
            floors,
            created,
            data.get("threshold"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "machine": self.machine,
            "max_time": self.max_time,
            "alpha": self.alpha,
            "min_effect": self.min_effect,
            "threshold": self.threshold,
            "floors": [f.to_json() for f in self.floors],
        }


def noise_bound(noise: float, rounds: int, upper: bool = True) -> float:
    """The NOISE_CONFIDENCE one-sided confidence bound (upper, or lower) of a standard deviation
    estimated from ``rounds`` values."""
    df = rounds - 1
    # chdtri(df, p) is chi2's (1 - p) quantile: its low quantile gives the upper bound, its high the lower
    tail = NOISE_CONFIDENCE if upper else 1 - NOISE_CONFIDENCE
    return noise * math.sqrt(df / float(special.chdtri(df, tail)))


def detectable_change(
    noise: float,
    rounds: int,
    alpha: float,
    min_effect: float,
    cells: int,
    anytime: bool = False,
    threshold: float | None = None,
) -> float:
    """The smallest time ratio (> 1) the paired gate calls faster or slower with POWER, for
    per-round log ratios of standard deviation ``noise`` (an A/A's) over ``rounds`` rounds;
    ``anytime``: with the anytime-valid p-values of the stopping rule on the answer, and with a
    gate's ``threshold``, the regression beyond it that its rule stops on (see _log_detectable)."""
    if rounds < 2 or not math.isfinite(noise):
        return math.inf
    return math.exp(_log_detectable(noise_bound(noise, rounds), rounds, alpha, min_effect, cells, anytime, threshold))


def _log_detectable(
    noise: float,
    rounds: int,
    alpha: float,
    min_effect: float,
    cells: int,
    anytime: bool = False,
    threshold: float | None = None,
) -> float:
    """The log change called with POWER over ``rounds`` rounds of per-round log ratios whose
    standard deviation is (at most) ``noise``: the estimate must pass the t test's critical value,
    or with ``anytime`` the confidence sequence's half-width at level alpha / cells (its p-value
    is at most that exactly where the interval excludes no change). A gate that stops on its
    threshold's question (``check --against`` at its defaults) stops once a regression beyond it is
    excluded, so it calls a slowdown only beyond the threshold by that margin."""
    df = rounds - 1
    se = noise / math.sqrt(rounds)
    level = alpha / max(cells, 1)
    critical = sequential.half_width(rounds, noise, 1 - level) if anytime else t_quantile(df, 1 - level / 2) * se
    if anytime and threshold is not None:
        return math.log1p(threshold) + critical + t_quantile(df, POWER) * se
    return max(math.log1p(min_effect), critical) + t_quantile(df, POWER) * se


def projected_change(floor: float, threshold: float) -> float:
    """The smaller change a budget is projected for, beside a floor: the check's --threshold while
    the floor is above it (the gate fails on slowdowns of that size, so the budget that sees them
    is the one to run it at), else half the floor (what seeing twice as fine would cost)."""
    return 1 + threshold if floor > 1 + threshold else 1 + (floor - 1) / 2


def rounds_to_detect(
    change: float, noise: float, rounds: int, alpha: float, min_effect: float, cells: int
) -> int | None:
    """The fewest rounds at which the gate calls ``change`` (a time ratio > 1) with POWER, the noise
    known from an A/A run of ``rounds`` rounds (None: not within MAX_PROJECTED_ROUNDS, or never:
    a change within ``min_effect`` is never called)."""
    if rounds < 2 or not math.isfinite(noise):
        return None
    bound = noise_bound(noise, rounds)

    def detects(projected_rounds: int) -> bool:
        return _log_detectable(bound, projected_rounds, alpha, min_effect, cells) <= math.log(change)

    if not detects(MAX_PROJECTED_ROUNDS):
        return None
    low, high = 1, MAX_PROJECTED_ROUNDS  # the detectable change falls with the rounds: bisect
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if detects(middle) else (middle, high)
    return high


def projected_precision(noise: float, rounds: int, projected_rounds: int) -> float:
    """The --precision (95% half-width of the ratio) the check reaches only at ``projected_rounds``
    rounds, at the NOISE_CONFIDENCE lower bound of the A/A's noise: its stopping rule must not end
    the run before."""
    se = noise_bound(noise, rounds, upper=False) / math.sqrt(projected_rounds)
    return math.expm1(t_quantile(projected_rounds - 1) * se)


def _round_up(seconds: float) -> float:
    """A budget to two significant digits and whole seconds, rounded up: 237.2 -> 240, 2.1 -> 3."""
    step = max(1, 10 ** (math.floor(math.log10(seconds)) - 1))
    return math.ceil(seconds / step) * step


def floor_of(
    case: str,
    contender: str,
    aa: Comparison,
    alpha: float,
    min_effect: float,
    cells: int,
    seconds: float,
    threshold: float | None = None,
) -> Floor:
    """The floor of one cell from its A/A comparison (the ratio of a contender to itself) measured
    in ``seconds`` of timing, for a gate at ``threshold``."""
    noise = aa.log_se * math.sqrt(aa.pairs) if aa.pairs >= 2 else math.inf
    # The gate's p-values are of the kind the A/A's were: anytime-valid where the check's rule may stop on them.
    change = detectable_change(noise, aa.pairs, alpha, min_effect, cells, aa.anytime, threshold)
    return Floor(case, contender, aa.pairs, noise, change, seconds)


def timing_seconds(run: RunResult) -> float:
    """How long the run's timing rounds took (its whole time but the equivalence checks before)."""
    return run.elapsed - run.equivalence_seconds


def qualify(
    aa_runs: list[RunResult], max_time: float, alpha: float, min_effect: float, threshold: float | None = None
) -> Qualification:
    """The floors of every (case, contender) of A/A runs, one run per contender whose two sides are
    that contender, as the paired gate measures one contender at a time (its verdicts are corrected
    across all the cells, so the floors are too)."""
    compared = [(run, c) for run in aa_runs for c in run.comparisons]
    floors = [
        floor_of(
            c.case,
            run.sides[c.contender]["contender"],
            c.comparison,
            alpha,
            min_effect,
            len(compared),
            timing_seconds(run) or max_time,  # (0: a run read from a file that did not keep its time)
            threshold,
        )
        for run, c in compared
    ]
    machine = aa_runs[0].metadata.get("machine") or {} if aa_runs else {}
    benchmark = aa_runs[0].benchmark if aa_runs else ""
    return Qualification(benchmark, machine, max_time, alpha, min_effect, floors, threshold=threshold)
