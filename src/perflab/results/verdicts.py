"""What one comparison says, decided once: its verdict, why, and the strings every output shows.

The terminal, Markdown, the HTML report, the web pages and ``--json`` lay these out and decide
nothing themselves (the order below was written once per renderer before, and drifted). A
comparison of a contender with the reference reads, first match wins:

1. invalid: the contender, or the reference's timing, does not do what the reference does;
2. repeat-only: outputs agree, but the ratio holds only for repeated calls (a memo cache);
3. undecided: too few rounds for an interval, or a verdict withheld (an unpaired comparison of
   runs measured under unequal load: perflab.results.warnings.load_difference);
4. its verdict: faster, slower, or no detectable difference (after the false discovery rate
   correction and the minimum effect).

The ratio of the first two is struck out: it does not count, and a headline never names such a
contender fastest. The ratio itself is always written the same way (perflab.units.format_ratio).
A ratio that counts but rests on something not checked (its output never compared with the
reference's; too short a run to check for repeat-only speed) carries an "unchecked" note in its
detail, so that no output presents it as a plain, checked speedup.

Beside it, with ``--metric memory``, a comparison of bytes allocated per call (``show_memory``):
more memory, less memory, or no difference beyond the spread of the processes.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from perflab.results.quantities import FASTER, NO_DIFFERENCE, SLOWER, Interval, ratio_of_ranges
from perflab.units import MEMORY_WORDS, format_ratio

INVALID, REPEAT_ONLY, UNDECIDED = "invalid", "repeat-only", "undecided"
UNCHECKED = "unchecked"  # the note of a ratio that rests on something not checked
# Every verdict a comparison can show, in the order above (renderers style them by these names).
VERDICTS = (INVALID, REPEAT_ONLY, UNDECIDED, FASTER, SLOWER, NO_DIFFERENCE)
TOO_FEW_ROUNDS = "too few rounds for an interval"


@dataclass(frozen=True)
class Colour:
    terminal: str  # rich's style
    css: str  # the pages' colour: report.css and the web's web.css set these (tests pin them here)


# The colour of each verdict on every surface ("faster" was blue in the report, green on the web
# and in the terminal); invalid and repeat-only never slower's red: their ratio does not count.
COLOURS = {
    FASTER: Colour("bright_blue", "#1f5fbf"),
    SLOWER: Colour("red", "#c0262d"),
    INVALID: Colour("bold magenta", "#7a3fa0"),
    REPEAT_ONLY: Colour("yellow", "#a86500"),
    UNDECIDED: Colour("dim", "#6b6b70"),
}
MORE_MEMORY, LESS_MEMORY, SAME_MEMORY = "more memory", "less memory", "no difference beyond the spread"
MEMORY_VERDICTS = (MORE_MEMORY, LESS_MEMORY, SAME_MEMORY)
# Bytes per call two figures must differ by before a memory verdict: what bytes allocated per call
# is accurate to (benchmarks/allocation_accuracy.py), so 0 B against 8 B is no verdict.
SMALLEST_MEMORY_DIFFERENCE = 64


@dataclass(frozen=True)
class Shown:
    verdict: str  # one of VERDICTS, or of MEMORY_VERDICTS
    detail: str | None  # why: the invalid status, the caution, the missing interval, or the adjusted p-value
    ratio: str  # the quantity as every output writes it: '1.39x faster [1.35x, 1.43x]'
    struck: bool  # the ratio does not count (invalid, repeat-only)
    unchecked: str | None = None  # what a ratio that counts rests on unchecked (also in ``detail``)

    @property
    def text(self) -> str:
        """'faster', 'invalid (not equivalent)', 'no detectable difference (p=0.31)'."""
        return self.verdict if self.detail is None else f"{self.verdict} ({self.detail})"

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "detail": self.detail,
            "ratio": self.ratio,
            "struck": self.struck,
            "unchecked": self.unchecked,
        }


def show(
    ratio: Interval,
    verdict: str,
    p_adjusted: float,
    invalid_reason: str | None,
    caution: str | None,
    no_interval: str = TOO_FEW_ROUNDS,
    unchecked: str | None = None,
    withheld: str | None = None,
    level: tuple[float, float] | None = None,
) -> Shown:
    """What a comparison of times says. ``ratio``: time of the contender / time of the reference;
    ``verdict``: perflab.analysis.estimates.verdict's; ``invalid_reason``: the status that makes the
    ratio invalid (None: valid); ``caution``: why it holds for repeated calls only (None: nothing);
    ``no_interval``: why a ratio without an interval has none (it is then undecided);
    ``unchecked``: what the ratio rests on that was not checked (None: nothing); ``withheld``: why
    its interval cannot carry a verdict (it is then undecided); ``level``: the false discovery rate
    and minimum effect of the verdict, to say why a 95% interval that excludes 1x has none."""
    text = format_ratio(ratio.value, ratio.low, ratio.high)
    if invalid_reason is not None:
        return Shown(INVALID, invalid_reason, text, True)
    if caution:
        return Shown(REPEAT_ONLY, caution, text, True)
    detail: str | None = None
    if not (math.isfinite(ratio.low) and math.isfinite(ratio.high)):
        verdict, detail = UNDECIDED, no_interval
    elif withheld:
        verdict, detail = UNDECIDED, f"no verdict: {withheld}"
    elif verdict not in (FASTER, SLOWER):
        # Say why there is none: not significant after the correction, or smaller than the minimum effect.
        short = None if level is None else short_of_a_verdict(ratio, verdict, *level)
        detail = f"p={p_adjusted:.2g}" + (f"; {short}" if short else "")
    if unchecked:
        detail = "; ".join(part for part in (detail, f"{UNCHECKED}: {unchecked}") if part)
    return Shown(verdict, detail, text, False, unchecked)


def short_of_a_verdict(ratio: Interval, verdict: str, alpha: float, min_effect: float) -> str | None:
    """Beside a "no detectable difference" whose 95% interval excludes 1x, why it is no verdict
    (the verdict's level is stricter after the false discovery rate correction, or the change is
    under the minimum effect), so that the line does not read as contradicting itself; else None."""
    if verdict != NO_DIFFERENCE or not (ratio.low > 1 or ratio.high < 1):
        return None
    if abs(ratio.value - 1) < min_effect:
        return f"a change under the {min_effect:.0%} minimum effect"
    return f"its 95% interval excludes 1x, but not at the {alpha:.0%} false discovery rate"


def show_memory(contender: Sequence[float], reference: Sequence[float], min_effect: float) -> Shown:
    """What a comparison of bytes allocated per call says, from each side's figure per process.
    These repeat almost exactly, so the interval is the range of ratios the two sides' processes
    allow, and a verdict needs all of it beyond the minimum effect, and the medians
    SMALLEST_MEMORY_DIFFERENCE bytes apart."""
    ratio = ratio_of_ranges(contender, reference)
    apart = statistics.median(contender) - statistics.median(reference)
    verdict = SAME_MEMORY
    if ratio.low > 1 + min_effect and apart > SMALLEST_MEMORY_DIFFERENCE:
        verdict = MORE_MEMORY
    elif ratio.high < 1 / (1 + min_effect) and -apart > SMALLEST_MEMORY_DIFFERENCE:
        verdict = LESS_MEMORY
    return Shown(verdict, None, format_ratio(ratio.value, ratio.low, ratio.high, MEMORY_WORDS), False)
