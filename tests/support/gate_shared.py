"""What the tiers of test_gate.py share (split by tier from one file)."""

from __future__ import annotations

import numpy as np


def processes(rng, k, ratio=1.0, between=0.03, within=0.05, values=10):
    """``k`` worker processes: each has its own level (layout, hash seed), values vary around it."""
    return [list(1e-5 * ratio * np.exp(rng.normal(0, between) + rng.normal(0, within, values))) for _ in range(k)]
