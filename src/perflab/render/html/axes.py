"""Ticks of the HTML files' log axes (the report's ratio chart, the offload what-if's size chart)."""

from __future__ import annotations

import math

MIN_TICK_GAP = 48  # pixels between tick labels, so that none overlaps its neighbour


def log_ticks(lo: float, hi: float, position) -> list[float]:
    """1-2-5 ticks between ``lo`` and ``hi`` (and 1), dropping any closer than MIN_TICK_GAP pixels
    to the last one kept; 1 is always kept, being the line of no difference."""
    candidates = sorted(
        {m * 10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for m in (1, 2, 5)}
        | {1.0}
    )
    inside = [t for t in candidates if lo <= t <= hi]
    kept: list[float] = []
    for tick in sorted(inside, key=lambda t: (t != 1, t)):  # 1 first, then left to right
        if all(abs(position(tick) - position(other)) >= MIN_TICK_GAP for other in kept):
            kept.append(tick)
    return sorted(kept)
