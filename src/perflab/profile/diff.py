"""Differential profile: where, in the call tree, two sides of a comparison spend different time.

Each side is profiled on its own (fresh profile-mode workers, never the timing workers). Raw
sample counts do not compare: the two sides may be sampled at different effective rates and for
different durations. So every node is converted to *time per call*: in each profiling run, the
node's share of the run's samples times the time per call measured in that run (the median of
the worker's batches while profiled). Within a comparison, the timing phase has measured each
side's time per call far more precisely (paired, interleaved rounds) than a few profiling runs
can on a noisy machine; given those (``timed``), the profiles only split them among the nodes. Both sides are slowed alike by the sampler, so differences
compare even though absolute times are a little inflated.

Nodes are calling contexts (a path of functions from the operation down), keyed by function and
file without the line (a function's line changes as it runs, and between revisions). Per node:
the mean over runs on each side, and a 95% Welch t interval of the difference B - A (runs are
independent processes, unpaired between sides). ``explain`` names the call path that holds most
of the difference, e.g. "81% of the 3.1 us added is in encode -> pad".

Profiles are only diffed when their sampler, sampling mode, frames collected and interpreter agree
(``allow_mismatch`` overrides): otherwise the difference would be partly the instrument's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from perflab.analysis import intervals
from perflab.profile.frames import Frame, parse_frame
from perflab.profile.model import IncomparableProfiles, Profile
from perflab.results.quantities import Interval
from perflab.units import format_signed_time, format_time

Path_ = tuple[str, ...]  # a calling context: function keys from the operation's top frame down
OPERATION: Path_ = ()
# The top frame of contenders defined in the benchmark file: two contenders' own functions differ
# in name but are the same node of the comparison.
CONTENDER = "[the contender's function]"
# A child holding at least this fraction of the operation's difference continues the named call path.
DOMINANT = 0.5


@dataclass(frozen=True)
class NodeDiff:
    path: Path_
    a: float  # seconds per call in this node and below, side A (mean over runs)
    b: float
    difference: Interval  # b - a with its 95% interval
    a_self: float  # seconds per call in this node itself
    b_self: float

    @property
    def name(self) -> str:
        return parse_frame(self.path[-1]).name if self.path else "the operation"


@dataclass
class ProfileDiff:
    a_name: str
    b_name: str
    nodes: dict[Path_, NodeDiff]
    runs: tuple[int, int]
    notes: list[str]

    @property
    def operation(self) -> NodeDiff:
        return self.nodes[OPERATION]

    def children(self, path: Path_) -> list[NodeDiff]:
        depth = len(path) + 1
        return [n for p, n in self.nodes.items() if len(p) == depth and p[:-1] == path]

    def dominant_path(self) -> list[NodeDiff]:
        """From the operation down, into the child holding most of the difference, while it holds at
        least half of the operation's (same sign)."""
        path = [self.operation]
        sign = 1.0 if self.operation.difference.value >= 0 else -1.0
        while True:
            children = self.children(path[-1].path)
            if not children:
                return path
            best = max(children, key=lambda n: sign * n.difference.value)
            if (
                sign * best.difference.value < DOMINANT * abs(self.operation.difference.value)
                or best.difference.value == 0
            ):
                return path
            path.append(best)

    def largest_self_changes(self, count: int = 5) -> list[NodeDiff]:
        nodes = [n for n in self.nodes.values() if n.path]
        return sorted(nodes, key=lambda n: -abs(n.b_self - n.a_self))[:count]

    def explain(self) -> str:
        """One sentence: how much the operation's time per call changed, and where."""
        total = self.operation.difference
        verb = "added" if total.value >= 0 else "saved"
        head = (
            f"{self.b_name} vs {self.a_name}: {format_time(self.operation.a)} -> {format_time(self.operation.b)} "
            f"per call ({format_signed_time(total.value)}, 95% CI {format_signed_time(total.low)} to "
            f"{format_signed_time(total.high)})"
        )
        if not math.isfinite(total.low) or total.low <= 0 <= total.high:
            changes = ", ".join(
                f"{n.name} {format_signed_time(n.b_self - n.a_self)}" for n in self.largest_self_changes(3)
            )
            return f"{head}; no detectable difference in the profiles" + (
                f" (largest self-time changes: {changes})" if changes else ""
            )
        path = self.dominant_path()
        if len(path) == 1:
            parts = ", ".join(
                f"{n.name} {abs(n.difference.value) / abs(total.value):.0%}"
                for n in sorted(self.children(OPERATION), key=lambda n: -abs(n.difference.value))[:3]
            )
            return f"{head}; no single call path holds half of the {format_time(abs(total.value))} {verb}" + (
                f" (largest: {parts})" if parts else ""
            )
        share = path[-1].difference.value / total.value
        named = path[-1]
        only = f" (only in {self.a_name})" if named.b == 0 else f" (only in {self.b_name})" if named.a == 0 else ""
        return f"{head}; {share:.0%} of the {format_time(abs(total.value))} {verb} is in {_arrow(path[1:])}{only}"


def check_comparable(a: Profile, b: Profile, names: tuple[str, str] = ("A", "B")) -> None:
    """Raise IncomparableProfiles (one line) when the instruments differ: sampler, mode, frames, interpreter."""
    for key, what, default in (
        ("sampler", "sampler", None),
        ("mode", "sampling mode", None),
        ("native", "frames collected", None),
        ("lines", "frames by line", False),  # profiles saved before --lines say nothing: by function
    ):
        if a.metadata.get(key, default) != b.metadata.get(key, default):
            raise IncomparableProfiles(
                f"the profiles differ in {what} ({names[0]}: {a.metadata.get(key, default)!r}, {names[1]}: "
                f"{b.metadata.get(key, default)!r}); refusing to diff them (--allow-mismatch to diff anyway)"
            )
    pa, pb = _interpreter(a), _interpreter(b)
    if pa != pb:
        raise IncomparableProfiles(
            f"the profiles were taken under different interpreters ({names[0]}: {pa}, {names[1]}: {pb}); "
            "refusing to diff them (--allow-mismatch to diff anyway)"
        )


def diff_profiles(
    a: Profile,
    b: Profile,
    names: tuple[str, str] = ("A", "B"),
    allow_mismatch: bool = False,
    timed: tuple[float, float] | None = None,
    timed_difference: Interval | None = None,
) -> ProfileDiff:
    """Per calling context: time per call on each side and the difference B - A with its interval.

    ``timed``: each side's time per call from the timing phase (then ``timed_difference``, its
    interval, is the operation's difference)."""
    notes = []
    try:
        check_comparable(a, b, names)
    except IncomparableProfiles as error:
        if not allow_mismatch:
            raise
        notes.append(f"diffed although {str(error).split('; refusing')[0].removeprefix('the ')}")
    files = {Path(p.metadata.get("benchmark_file", "")).name for p in (a, b)}
    contender_file = (
        files.pop() if len(files) == 1 and a.metadata.get("contender") != b.metadata.get("contender") else None
    )
    total_a, self_a, units_a = per_run_times(a, contender_file, timed[0] if timed else None)
    total_b, self_b, units_b = per_run_times(b, contender_file, timed[1] if timed else None)
    notes.append(
        "times per call from the timing phase, split by the profiles' shares"
        if timed
        else "times per call measured while profiled (median batch of each run)"
    )
    if not units_a or not units_b:
        raise ValueError(f"no profiling run with a time per call on side {names[0] if not units_a else names[1]}")
    paired = units_a == units_b and all(not str(u).startswith("run ") for u in units_a)
    zeros_a, zeros_b = np.zeros(len(units_a)), np.zeros(len(units_b))
    nodes = {}
    for path in sorted(set(total_a) | set(total_b)):
        ta, tb = total_a.get(path, zeros_a), total_b.get(path, zeros_b)
        sa, sb = self_a.get(path, zeros_a), self_b.get(path, zeros_b)
        interval = paired_interval(ta, tb) if paired else welch_interval(ta, tb)
        nodes[path] = NodeDiff(path, float(ta.mean()), float(tb.mean()), interval, float(sa.mean()), float(sb.mean()))
    if timed is not None and timed_difference is not None:
        nodes = {path: _with_timing_error(node, timed, timed_difference) for path, node in nodes.items()}
    if min(len(units_a), len(units_b)) < 2:
        notes.append("fewer than two profiling rounds on a side: no intervals")
    notes.append(
        f"{len(units_a)} rounds profiled alternately, intervals paired by round"
        if paired
        else f"{len(units_a)} and {len(units_b)} runs, unpaired (Welch) intervals"
    )
    return ProfileDiff(names[0], names[1], nodes, (len(units_a), len(units_b)), notes)


def _with_timing_error(node: NodeDiff, timed: tuple[float, float], total: Interval) -> NodeDiff:
    """Widen a node's interval (which so far reflects only its shares' spread) by the timing
    phase's uncertainty about the whole operation, scaled by the node's share, in quadrature."""
    if not node.path:
        return replace(node, difference=total)
    d = node.difference
    share = (node.a / timed[0] + node.b / timed[1]) / 2
    timing_half = share * max(total.high - total.value, total.value - total.low)
    low, high = d.value - d.low, d.high - d.value
    return replace(
        node,
        difference=Interval(d.value, d.value - math.hypot(low, timing_half), d.value + math.hypot(high, timing_half)),
    )


def per_run_times(
    profile: Profile, contender_file: str | None = None, scale: float | None = None
) -> tuple[dict[Path_, np.ndarray], dict[Path_, np.ndarray], list]:
    """(total seconds per call of each node in each unit, self seconds per call, the units' ids).

    A unit is a profiling run, or all runs of one round of ``profile_group`` (runs that carry the
    same "round" in their run_info): rounds of two sides taken close in time are paired.
    ``contender_file``: top frames in this file are the contender's own function, relabelled
    CONTENDER so that two contenders of one file line up. ``scale``: the side's time per call from
    the timing phase, used instead of each run's own.
    """
    units: dict[object, list] = {}
    for index, (run, info) in enumerate(zip(profile.runs, profile.metadata.get("run_info", []))):
        per_call = scale or info.get("time_per_call")
        if per_call and sum(run.values()):
            units.setdefault(info.get("round", f"run {index}"), []).append((run, per_call))
    total: dict[Path_, np.ndarray] = defaultdict(lambda: np.zeros(len(units)))
    own: dict[Path_, np.ndarray] = defaultdict(lambda: np.zeros(len(units)))
    keys: dict[tuple[int, str], str] = {}
    for u, runs in enumerate(units.values()):
        samples = sum(sum(run.values()) for run, _ in runs)
        per_call = sum(sum(run.values()) * t for run, t in runs) / samples  # weighted by samples
        for run, _ in runs:
            for stack, count in run.items():
                path = tuple(
                    keys.get((depth, label)) or keys.setdefault((depth, label), _key(label, depth, contender_file))
                    for depth, label in enumerate(stack)
                )
                seconds = count / samples * per_call
                for depth in range(len(path) + 1):
                    total[path[:depth]][u] += seconds
                own[path][u] += seconds
    return dict(total), dict(own), list(units)


def _key(label: str, depth: int, contender_file: str | None) -> str:
    key = function_key(label)
    if depth == 0 and contender_file and parse_frame(label).file.endswith("/" + contender_file):
        return CONTENDER
    return key


def function_key(label: str) -> str:
    """A frame label without its line: one node per function in each calling context."""
    frame = parse_frame(label)
    return Frame(frame.name, frame.file, None).label if frame.file else label


def welch_interval(a: np.ndarray, b: np.ndarray) -> Interval:
    """95% Welch t interval of mean(b) - mean(a); infinite with fewer than two values on a side."""
    return intervals.welch(a, b).interval


def paired_interval(a: np.ndarray, b: np.ndarray) -> Interval:
    """95% t interval of the mean of b - a over rounds (each round: both sides, close in time)."""
    return intervals.paired(a, b).interval


def _interpreter(profile: Profile) -> str:
    python = profile.metadata.get("python") or {}
    return f"{python.get('implementation', '?')} {python.get('version', '?')} ({python.get('executable', '?')})"


def _arrow(nodes: Sequence[NodeDiff], keep: int = 3) -> str:
    names = [n.name for n in nodes]
    return " -> ".join((["..."] if len(names) > keep else []) + names[-keep:])
