"""Each frame's share of the operation, with a 95% interval across profiling runs.

- self share: the fraction of samples whose innermost frame is this frame (time spent in it);
- total share: the fraction of samples with this frame anywhere on the stack (time in it and in
  everything it calls; a recursive frame counts once per sample).

The estimate pools all runs (samples of frame / all samples). Its interval must cover two sources
of error: sampling (a few hundred samples of a 2% frame say little) and the process itself (each
run is a fresh process with its own memory layout and machine state; runs are the independent
unit, as in perflab.analysis.estimates). So the interval is the envelope of
  - a ratio-estimator t interval over runs (cluster-robust: the between-run spread), and
  - a Wilson score interval on the pooled counts (which never collapses to a point at 0% or 100%).
Coverage is checked by simulation in tests/unit/test_profile_shares.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from perflab.analysis.intervals import Z, t_quantile
from perflab.profile.folded import Stack
from perflab.profile.processors import OPERATION_SELF
from perflab.results.quantities import Interval


@dataclass(frozen=True)
class FrameShare:
    frame: str
    self: Interval
    total: Interval
    self_samples: int
    total_samples: int


def per_run_counts(runs: Sequence[Mapping[Stack, int]]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(frames, self counts [frame x run], total counts [frame x run], samples per run).

    Each distinct stack is read once: which frames it holds (each once, for recursion) and its
    innermost frame become sparse incidence matrices, and the per-run counts are one product.
    """
    stack_ids: dict[Stack, int] = {}
    for run in runs:
        for stack in run:
            stack_ids.setdefault(stack, len(stack_ids))
    frame_ids: dict[str, int] = {}
    rows: list[int] = []
    columns: list[int] = []
    leaves = np.zeros(len(stack_ids), dtype=np.int64)
    for stack, row in stack_ids.items():
        labels = stack or (OPERATION_SELF,)
        members = {frame_ids.setdefault(label, len(frame_ids)) for label in labels}
        rows.extend([row] * len(members))
        columns.extend(members)
        leaves[row] = frame_ids[labels[-1]]
    shape = (len(stack_ids), len(frame_ids))
    contains = sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=shape)
    ends_in = sparse.csr_matrix((np.ones(len(stack_ids)), (np.arange(len(stack_ids)), leaves)), shape=shape)
    counts = np.zeros((len(runs), len(stack_ids)))
    for r, run in enumerate(runs):
        if run:
            counts[r, [stack_ids[stack] for stack in run]] = list(run.values())
    total = np.asarray(contains.T @ counts.T)
    own = np.asarray(ends_in.T @ counts.T)
    return list(frame_ids), own, total, counts.sum(axis=1)


def share_intervals(counts: np.ndarray, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pooled share, low and high bounds for each row of ``counts`` (rows: frames, columns: runs)."""
    counts = np.atleast_2d(counts)
    n_total = samples.sum()
    if n_total == 0:
        zeros = np.zeros(counts.shape[0])
        return zeros, zeros, np.ones(counts.shape[0])
    share = counts.sum(axis=1) / n_total
    low, high = _wilson(share, n_total)
    runs = counts.shape[1]
    if runs >= 2:
        residuals = counts - share[:, None] * samples[None, :]
        variance = runs / (runs - 1) * (residuals**2).sum(axis=1) / n_total**2
        half = t_quantile(runs - 1) * np.sqrt(variance)
        low, high = np.minimum(low, share - half), np.maximum(high, share + half)
    return share, np.clip(low, 0, 1), np.clip(high, 0, 1)


def _wilson(share: np.ndarray, n: float) -> tuple[np.ndarray, np.ndarray]:
    z2 = Z * Z
    center = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = Z * np.sqrt(share * (1 - share) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return center - half, center + half


def frame_shares(runs: Sequence[Mapping[Stack, int]]) -> list[FrameShare]:
    """Every frame's self and total share with intervals, largest total share first."""
    frames, own, total, samples = per_run_counts(runs)
    if not frames:
        return []
    self_share, self_low, self_high = share_intervals(own, samples)
    total_share, total_low, total_high = share_intervals(total, samples)
    own_sum, total_sum = own.sum(axis=1), total.sum(axis=1)
    shares = [
        FrameShare(
            frame,
            Interval(float(self_share[i]), float(self_low[i]), float(self_high[i])),
            Interval(float(total_share[i]), float(total_low[i]), float(total_high[i])),
            int(own_sum[i]),
            int(total_sum[i]),
        )
        for i, frame in enumerate(frames)
    ]
    return sorted(shares, key=lambda share: (-share.total_samples, -share.self_samples, share.frame))


def widest_half_width(runs: Sequence[Mapping[Stack, int]]) -> float:
    """The widest 95% interval half-width of any frame's self or total share (1.0 with no sample):
    how precise a profile's shares are, for the adaptive budget of perflab.profile.pairing."""
    frames, own, total, samples = per_run_counts(runs)
    if not frames or samples.sum() == 0:
        return 1.0
    widths = [high - low for _, low, high in (share_intervals(own, samples), share_intervals(total, samples))]
    return float(max(width.max() for width in widths)) / 2
