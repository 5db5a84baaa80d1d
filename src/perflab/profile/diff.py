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

Allocation profiles (perflab.profile.allocations, memray) diff the same way in their own unit:
each run's weight of a node divided by the calls the run made (bytes or allocations per call; the
peak view as it is, a moment's), so two sides that made different numbers of calls compare. Each
run is a fresh process, so the intervals are Welch's across processes.

Profiles are only diffed when their sampler, sampling mode (a memory profile's view), frames
collected and interpreter agree (``allow_mismatch`` overrides): otherwise the difference would be
partly the instrument's. py-spy --native and perf count as one sampler: both sample CPU time in
Python and C frames, and their C frames are named alike (perflab.profile.processors.align_native_frames).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from perflab.analysis import intervals
from perflab.profile.frames import Frame, parse_frame
from perflab.profile.model import IncomparableProfiles, Profile, instrument, is_allocation_profile, weight_unit
from perflab.profile.processors import align_native_frames
from perflab.profile.settings import MEMORY_VIEWS, PER_CALL_VIEWS
from perflab.results.quantities import Interval
from perflab.units import format_bytes, format_count, format_time

Path_ = tuple[str, ...]  # a calling context: function keys from the operation's top frame down
OPERATION: Path_ = ()
# The top frame of contenders defined in the benchmark file: two contenders' own functions differ
# in name but are the same node of the comparison.
CONTENDER = "[the contender's function]"
# A child holding at least this fraction of the operation's difference continues the named call path.
DOMINANT = 0.5
# What a node's value is, by the profiles' weight unit (perflab.profile.model.weight_unit).
FORMATS: dict[str, Callable[[float], str]] = {
    "samples": format_time,
    "bytes": format_bytes,
    "allocations": format_count,
}


@dataclass(frozen=True)
class NodeDiff:
    path: Path_
    a: float  # seconds (a memory profile: bytes or allocations) per call in this node and below, side A (mean over runs)
    b: float
    difference: Interval  # b - a with its 95% interval
    a_self: float  # per call in this node itself
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
    unit: str = "samples"  # the profiles' weight unit: "samples" (time), "bytes" or "allocations"
    measure: str = "time per call"  # what a node's value is, in words
    # The sides' times are A's median and A's times the measured ratio (``timed_difference``), not
    # B's own median, which a table beside the sentence shows: the sentence names them.
    scaled: bool = False

    def format(self, value: float) -> str:
        return FORMATS[self.unit](value) if math.isfinite(value) else "?"

    def signed(self, value: float) -> str:
        """'+3.1 us', '-48.8 KiB': a difference in the diff's unit."""
        return ("+" if value >= 0 else "-") + self.format(abs(value)) if math.isfinite(value) else "?"

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

    def _scaled_words(self) -> str:
        if not self.scaled:
            return ""
        return f" ({self.a_name}'s median, and that times the measured ratio, not {self.b_name}'s own median)"

    def largest_self_changes(self, count: int = 5) -> list[NodeDiff]:
        nodes = [n for n in self.nodes.values() if n.path]
        return sorted(nodes, key=lambda n: -abs(n.b_self - n.a_self))[:count]

    def explain(self) -> str:
        """One sentence: how much the operation's time (or memory) per call changed, and where."""
        total = self.operation.difference
        verb = "added" if total.value >= 0 else "saved"
        before, after = self.format(self.operation.a), self.format(self.operation.b)
        change = f"({self.signed(total.value)}, 95% CI {self.signed(total.low)} to {self.signed(total.high)})"
        head = (
            f"{self.b_name} vs {self.a_name}: {before} -> {after} per call{self._scaled_words()} {change}"
            if self.unit == "samples"
            else f"{self.b_name} vs {self.a_name}: {self.measure} {before} -> {after} {change}"
        )
        if not math.isfinite(total.low) or total.low <= 0 <= total.high:
            changes = ", ".join(f"{n.name} {self.signed(n.b_self - n.a_self)}" for n in self.largest_self_changes(3))
            return f"{head}; no detectable difference in the profiles" + (
                f" (largest self {'time' if self.unit == 'samples' else 'memory'} changes: {changes})"
                if changes
                else ""
            )
        path = self.dominant_path()
        if len(path) == 1:
            parts = ", ".join(
                f"{n.name} {abs(n.difference.value) / abs(total.value):.0%}"
                for n in sorted(self.children(OPERATION), key=lambda n: -abs(n.difference.value))[:3]
            )
            return f"{head}; no single call path holds half of the {self.format(abs(total.value))} {verb}" + (
                f" (largest: {parts})" if parts else ""
            )
        share = path[-1].difference.value / total.value
        named = path[-1]
        only = f" (only in {self.a_name})" if named.b == 0 else f" (only in {self.b_name})" if named.a == 0 else ""
        return f"{head}; {share:.0%} of the {self.format(abs(total.value))} {verb} is in {_arrow(path[1:])}{only}"

    def to_json(self) -> dict:
        """Every call path's value on each side and the difference with its interval (``perflab diff --json``)."""
        finite = lambda v: v if math.isfinite(v) else None
        return {
            "format": "perflab.profile-diff/1",
            "sides": [self.a_name, self.b_name],
            "unit": "seconds" if self.unit == "samples" else self.unit,
            "measure": self.measure,
            "runs": list(self.runs),
            "explain": self.explain(),
            "notes": self.notes,
            "nodes": [
                {
                    "path": [parse_frame(label).name for label in n.path],
                    "frames": list(n.path),
                    "a": n.a,
                    "b": n.b,
                    "difference": {
                        "value": n.difference.value,
                        "low": finite(n.difference.low),
                        "high": finite(n.difference.high),
                    },
                    "a_self": n.a_self,
                    "b_self": n.b_self,
                }
                for n in (self.nodes[p] for p in sorted(self.nodes))
            ],
        }


def check_comparable(a: Profile, b: Profile, names: tuple[str, str] = ("A", "B")) -> None:
    """Raise IncomparableProfiles (one line) when the instruments differ: sampler, mode, frames, interpreter."""
    samplers = a.metadata.get("sampler"), b.metadata.get("sampler")
    if samplers[0] != samplers[1] and instrument(a.metadata) != instrument(b.metadata):  # py-spy --native, perf: one
        raise IncomparableProfiles(
            f"the profiles differ in sampler ({names[0]}: {samplers[0]!r}, {names[1]}: "
            f"{samplers[1]!r}); refusing to diff them (--allow-mismatch to diff anyway)"
        )
    for key, what, default in (
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
    if a.metadata.get("sampler") != b.metadata.get("sampler") and not notes:  # not refused: perf and py-spy --native
        notes.append(
            f"sampled by {a.metadata.get('sampler')} and {b.metadata.get('sampler')}: their C frames lined up by "
            "function; each sampler slows the target differently"
        )
    runs_a, runs_b = align_native_frames([a.runs, b.runs])  # a perf profile against a py-spy one: C frames alike
    a, b = replace(a, runs=runs_a), replace(b, runs=runs_b)
    memory = is_allocation_profile(a.metadata)
    if memory:  # bytes per call are the profiles' own figures: a time per call would not split them
        timed = timed_difference = None
    files = {Path(p.metadata.get("benchmark_file", "")).name for p in (a, b)}
    contender_file = (
        files.pop() if len(files) == 1 and a.metadata.get("contender") != b.metadata.get("contender") else None
    )
    total_a, self_a, units_a = per_run_times(a, contender_file, timed[0] if timed else None)
    total_b, self_b, units_b = per_run_times(b, contender_file, timed[1] if timed else None)
    notes.append(
        "each run's memory divided by the calls it made"
        if memory
        else "times per call from the timing phase, split by the profiles' shares"
        if timed
        else "times per call measured while profiled (median batch of each run)"
    )
    if not units_a or not units_b:
        what = "calls" if memory else "a time per call"
        raise ValueError(f"no profiling run with {what} on side {names[0] if not units_a else names[1]}")
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
    return ProfileDiff(
        names[0],
        names[1],
        nodes,
        (len(units_a), len(units_b)),
        notes,
        weight_unit(a.metadata),
        measure_of(a),
        scaled=timed is not None and timed_difference is not None,
    )


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
    """(total seconds per call of each node in each unit, self seconds per call, the units' ids);
    for an allocation profile, bytes or allocations per call (the peak view: as it is), one unit per run.

    A unit is a profiling run, or all runs of one round of ``profile_group`` (runs that carry the
    same "round" in their run_info): rounds of two sides taken close in time are paired.
    ``contender_file``: top frames in this file are the contender's own function, relabelled
    CONTENDER so that two contenders of one file line up. ``scale``: the side's time per call from
    the timing phase, used instead of each run's own.
    """
    units: dict[object, list] = {}
    memory = is_allocation_profile(profile.metadata)
    for index, (run, info) in enumerate(zip(profile.runs, profile.metadata.get("run_info", []))):
        if memory:  # every run counts, even one that allocated nothing
            if info.get("loops"):
                units[f"run {index}"] = [(run, info["loops"] if _per_call_view(profile) else 1, 1.0)]
            continue
        per_call = scale or info.get("time_per_call")
        if per_call and sum(run.values()):
            units.setdefault(info.get("round", f"run {index}"), []).append((run, per_call))
    if not memory:  # a sample's seconds: its share of the unit's samples times the unit's time per call
        for key, runs in units.items():
            samples = sum(sum(run.values()) for run, _ in runs)
            per_call = sum(sum(run.values()) * t for run, t in runs) / samples  # weighted by samples
            units[key] = [(run, samples, per_call) for run, _ in runs]
    total: dict[Path_, np.ndarray] = defaultdict(lambda: np.zeros(len(units)))
    own: dict[Path_, np.ndarray] = defaultdict(lambda: np.zeros(len(units)))
    keys: dict[tuple[int, str], str] = {}
    for u, runs in enumerate(units.values()):
        for run, divisor, per_call in runs:
            for stack, count in run.items():
                path = tuple(
                    keys.get((depth, label)) or keys.setdefault((depth, label), _key(label, depth, contender_file))
                    for depth, label in enumerate(stack)
                )
                value = count / divisor * per_call
                for depth in range(len(path) + 1):
                    total[path[:depth]][u] += value
                own[path][u] += value
    return dict(total), dict(own), list(units)


def _per_call_view(profile: Profile) -> bool:
    return profile.metadata.get("mode") in PER_CALL_VIEWS


def measure_of(profile: Profile) -> str:
    """What a node's value in a diff of these profiles is, in words."""
    if not is_allocation_profile(profile.metadata):
        return "time per call"
    view = MEMORY_VIEWS.get(profile.metadata.get("mode", ""), "memory")
    if not _per_call_view(profile):
        return view  # the peak: a moment's
    return f"{view}, per call" if view.endswith("calls") else f"{view} per call"


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
