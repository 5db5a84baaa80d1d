"""The numbers a result is made of: an estimate with its interval, a cell's estimates, a
comparison's ratio, and the words of a verdict.

Plain values with no statistics library behind them, so that the results model, the store and
the renderers can hold and show numbers without importing numpy or scipy. How they are computed
is perflab.analysis.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from perflab.units import format_percent, format_ratio

CONFIDENCE = 0.95
FASTER, SLOWER, NO_DIFFERENCE = "faster", "slower", "no detectable difference"


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float

    @property
    def relative_half_width(self) -> float:
        """The larger distance from the estimate to a bound, as a fraction of the estimate."""
        if not math.isfinite(self.low) or not math.isfinite(self.high) or self.value == 0:
            return math.inf
        return max(self.high - self.value, self.value - self.low) / abs(self.value)

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high


def ratio_of_ranges(current: Sequence[float], baseline: Sequence[float]) -> Interval:
    """median(current) / median(baseline) of per-process figures that repeat (almost) exactly, with
    the smallest and largest ratio their two ranges allow (instructions or bytes per call): the
    ratios' uncertainty when there is no noise to model. Dividing by 0 gives infinity (1 for 0/0)."""

    def divide(a: float, b: float) -> float:
        return a / b if b else (math.inf if a else 1.0)

    return Interval(
        divide(statistics.median(current), statistics.median(baseline)),
        divide(min(current), max(baseline)),
        divide(max(current), min(baseline)),
    )


@dataclass(frozen=True)
class CellEstimates:
    median: Interval
    mean: Interval
    processes: int
    values: int
    outlier_values: int  # values beyond Tukey's far-out fences (3 IQR), kept in every estimate
    outlier_processes: int  # processes whose median is beyond the fences of all process medians


@dataclass(frozen=True)
class Comparison:
    ratio: Interval  # time of the contender / time of the reference
    p_value: float
    pairs: int
    log_se: float  # standard error of the mean log ratio (for combining across cases)
    # The interval and p-value are anytime-valid (perflab.analysis.sequential): the runner's rule
    # could stop on the data, so a fixed-sample t interval would not hold. False: a t interval.
    anytime: bool = False


@dataclass(frozen=True)
class BuildSpread:
    """How far two builds of one revision (the base of a comparison of built revisions) time
    apart on this benchmark: the A/A ratio, second build / first, of the case whose interval
    reaches farthest from 1 (perflab.measure.build_noise). A build is not bit-for-bit
    reproducible in speed (code layout, link order), so a difference inside this spread may be
    the build's, not the source's."""

    revision: str
    case: str
    ratio: Interval
    cached: bool = False  # measured by an earlier run, kept with the builds

    @property
    def spread(self) -> float:
        """The farther bound as a fraction either way: [0.99, 1.008] -> 0.0101 (1/0.99 - 1); inf
        without an interval."""
        if not (self.ratio.low > 0 and math.isfinite(self.ratio.high)):
            return math.inf
        return math.expm1(max(math.log(self.ratio.high), -math.log(self.ratio.low), 0.0))

    @property
    def shown(self) -> str:
        """'build-to-build spread ±0.8% [measured on the base revision main, built twice: 1.00x
        slower [0.994x, 1.01x] on K]', as every output writes it."""
        ratio = format_ratio(self.ratio.value, self.ratio.low, self.ratio.high)
        measured = f"the base revision {self.revision}, built twice: {ratio}"
        if not math.isfinite(self.spread):
            return f"build-to-build spread unknown [{measured} on {self.case}: too few rounds for an interval]"
        return f"build-to-build spread ±{format_percent(self.spread)} [measured on {measured} on {self.case}]"

    def to_json(self) -> dict:
        return {
            "revision": self.revision,
            "case": self.case,
            "ratio": {"value": self.ratio.value, "low": self.ratio.low, "high": self.ratio.high},
            "spread": self.spread,
            "cached": self.cached,
        }

    @classmethod
    def from_json(cls, data: dict) -> BuildSpread:
        ratio = Interval(*(float(data["ratio"][bound]) for bound in ("value", "low", "high")))  # "inf" too
        return cls(data["revision"], data["case"], ratio, data.get("cached", False))
