"""When a case has measured enough: the timing rounds' stopping rule (issue 40).

At its default (``Settings.stop_when == "answered"``) a case stops after at least ``min_rounds``
measured rounds once every ratio to the reference is *answered*:

- decided faster or slower: its anytime-valid interval (perflab.analysis.sequential) lies wholly
  beyond the ``min_effect`` band, its anytime p-value passes ``alpha`` even after the
  Benjamini-Hochberg step-up over all of the run's comparisons (``p * comparisons <= alpha``, so
  the verdict at the end is this one whatever the others', FDR included), and the interval is
  narrow enough to state the size: within ``precision`` or within a share of the effect (SIZE_SHARE
  of its log, at most SIZE_CAP), since "15x faster" needs no ±1%;
- decided "no difference beyond min-effect": the interval lies wholly inside the band;
- or precise: its half-width is within ``precision``;
- and for a gate (``check --against``, ``regression_threshold``), as soon as the interval lies
  wholly below 1 + threshold (a regression excluded), or its one-sided p-value of "no regression
  beyond the threshold" passes ``alpha`` after the step-up (a regression confirmed).

Every interval and p-value the run then reports is the anytime-valid one, so what is shown holds
at whichever round the rule stopped. With ``stop_when == "precise"`` (the user asked for a
--precision), only precision stops a case and the intervals are fixed-sample t intervals, as before
this rule; so are they when the round count is fixed in advance (``min_rounds == max_rounds``).
Either way the budget (``max_time``) stops everything.
"""

from __future__ import annotations

import math

from perflab.analysis import estimates
from perflab.measure.settings import Settings
from perflab.results.quantities import Comparison, Interval

# A decided ratio's half-width may be half its log, so the bound nearer 1x is at least the square
# root of the estimate: 1.2x [1.10x, 1.31x] tells "faster, by 10 to 31%". On a busy machine whole
# rounds are off by tens of percent in wall time (time the vCPU lost, not a wait in the run queue:
# the per-round log ratios of a 2x pair beside bursty load had an sd of 15% where their CPU time
# had 2.2%, with under 1% of the time waited), and a fifth of the log took 125 rounds for 1.2x,
# past a 60 s budget.
SIZE_SHARE = 0.5
SIZE_CAP = 0.25  # and at most 25%: 15x faster [12.0x, 18.8x] says "over 12x"


def decided(comparison: Comparison, settings: Settings, comparisons: int) -> bool:
    """Whether more rounds would not change this comparison's verdict and would only narrow a size
    already known well enough (``comparisons``: how many the run's FDR correction spans)."""
    if comparison.pairs < 2:
        return False
    ratio = comparison.ratio
    threshold = settings.regression_threshold
    if (
        threshold is not None
    ):  # a gate's question: a regression beyond the threshold excluded, or confirmed at its level
        if ratio.high < 1 + threshold:
            return True
        if ratio.low > 1 + threshold and estimates.p_above(comparison, 1 + threshold) * comparisons <= settings.alpha:
            return True
    low, high = 1 - settings.min_effect, 1 + settings.min_effect
    if low < ratio.low and ratio.high < high:
        return True  # no difference beyond --min-effect, decided
    beyond = ratio.low > high or ratio.high < low
    significant = comparison.p_value * comparisons <= settings.alpha
    return beyond and significant and ratio.relative_half_width <= size_precision(ratio, settings.precision)


def size_precision(ratio: Interval, precision: float) -> float:
    """The relative half-width that states a decided ratio's size well enough."""
    return max(precision, min(SIZE_CAP, SIZE_SHARE * abs(math.log(ratio.value))))
