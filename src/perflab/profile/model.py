"""A profile: the operation's stacks from each profiling run, and what is needed to interpret them.

Runs are kept apart (not only their sum) because the spread between runs is what the intervals
of per-frame shares are computed from. Saved as JSON with schema ``perflab.profile/1``: a table
of distinct frame labels, and per run a list of (frame indices, samples).
"""

from __future__ import annotations

import json
import sysconfig
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perflab.profile.folded import FoldedFormatError, Stack, merge_stacks, read_folded
from perflab.profile.processors import (
    align_native_frames,
    is_measured_region,
    normalize_stacks,
    path_roots,
    project_root,
    trim_to_operation,
    without_operation_frame,
)
from perflab.profile.settings import MEMORY_VIEWS

SCHEMA = "perflab.profile/1"
# Metadata that must agree for two profiles to be merged or compared: a profile with native frames
# and one without, CPU and wall-clock samples, or frames by line and by function describe different things.
COMPARABLE_KEYS = ("sampler", "mode", "native", "lines", "benchmark", "case", "contender")
# Samplers whose profiles with C frames are of one thing (CPU time of the same Python and C frames,
# C functions named alike by align_native_frames): their profiles merge and diff with each other.
NATIVE_SAMPLERS = ("py-spy", "perf")


class ProfileFileError(Exception):
    """A saved profile that cannot be read; the message names the file."""


@dataclass
class Profile:
    runs: list[Counter[Stack]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def samples(self) -> int:
        return sum(sum(run.values()) for run in self.runs)

    def merged(self) -> Counter[Stack]:
        return merge_stacks(self.runs)

    def to_json(self) -> dict[str, Any]:
        index: dict[str, int] = {}
        runs = []
        for run in self.runs:
            runs.append(
                [
                    [[index.setdefault(label, len(index)) for label in stack], count]
                    for stack, count in sorted(run.items(), key=lambda item: -item[1])
                ]
            )
        return {"schema": SCHEMA, "metadata": self.metadata, "frames": list(index), "runs": runs}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Profile:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema is {data.get('schema')!r}, expected {SCHEMA!r}")
        frames = data["frames"]
        runs = []
        for run in data["runs"]:
            stacks: Counter[Stack] = Counter()
            for indices, count in run:
                stacks[tuple(frames[i] for i in indices)] += int(count)
            runs.append(stacks)
        return cls(runs, dict(data.get("metadata") or {}))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError) as error:
            raise ProfileFileError(f"{path}: not a readable perflab profile ({error})") from error


def load_profile(path: str | Path) -> Profile:
    """A saved profile (perflab.profile/1 JSON) or a folded-stacks file as a profile of one run.

    Folded stacks straight from a sampler (with the harness around the operation) are trimmed to
    the operation; folded stacks exported by perflab already are. Paths are normalized against
    this interpreter and the current project, so they line up with perflab's own profiles.
    """
    try:
        with open(path, "rb") as file:
            is_json = file.read(1) == b"{"
    except OSError as error:
        raise ProfileFileError(f"{path}: cannot read profile: {error.strerror or error}") from error
    if is_json:
        return Profile.load(path)
    try:
        stacks = read_folded(path)
    except FoldedFormatError as error:
        raise ProfileFileError(str(error)) from error
    if any(is_measured_region(label) for stack in stacks for label in stack):
        stacks = trim_to_operation(stacks).stacks
    roots = path_roots(project_root(Path.cwd()), sysconfig.get_paths())
    return Profile([without_operation_frame(normalize_stacks(stacks, roots))], {"source": "folded"})


def subject(file: str, case: str, contender: str, benchmark: str = "") -> dict[str, str]:
    """What a profile of a benchmark's operation is of: the first keys of its metadata."""
    return {"benchmark": benchmark or Path(file).stem, "benchmark_file": file, "case": case, "contender": contender}


def describe_sampling(metadata: dict[str, Any]) -> str:
    """One line on how the samples were taken: 'py-spy 0.4.3 --nonblocking, cpu time, 200 Hz, Python frames',
    or for an allocation profile 'memray 1.19.1, bytes allocated, Python frames'."""
    sampler = str(metadata.get("sampler_version") or metadata.get("sampler", "?"))
    if metadata.get("nonblocking"):
        sampler += " --nonblocking"
    frames = "Python + native frames" if metadata.get("native") else "Python frames"
    if metadata.get("lines"):
        frames += " by line"
    if is_allocation_profile(metadata):
        return f"{sampler}, {MEMORY_VIEWS.get(metadata.get('mode', ''), '?')}, {frames}"
    return f"{sampler}, {metadata.get('mode', '?')} time, {metadata.get('rate', '?')} Hz, {frames}"


def is_allocation_profile(metadata: dict[str, Any]) -> bool:
    """Whether the profile's weights are memory (perflab.profile.allocations), not time samples."""
    return metadata.get("sampler") == "memray"


def weight_unit(metadata: dict[str, Any]) -> str:
    """What one unit of a stack's weight is: "samples", "bytes" or "allocations"."""
    if not is_allocation_profile(metadata):
        return "samples"
    return "allocations" if metadata.get("mode") == "allocations" else "bytes"


def instrument(metadata: dict[str, Any]) -> str | None:
    """The sampler as merging and diffing compare it: py-spy --native and perf count as one (two
    profiles of one sampler differ in nothing here: with and without C frames, "native" says so)."""
    sampler = metadata.get("sampler")
    return " or ".join(NATIVE_SAMPLERS) if metadata.get("native") and sampler in NATIVE_SAMPLERS else sampler


class IncomparableProfiles(Exception):
    """Profiles whose sampler, mode or subject differ; merging them would mix different things."""


def _run_info(profile: Profile) -> list[dict[str, Any]]:
    """One entry per run (empty where the profile has none)."""
    given = list(profile.metadata.get("run_info", []))[: len(profile.runs)]
    return given + [{} for _ in range(len(profile.runs) - len(given))]


def merge_profiles(profiles: list[tuple[str, Profile]]) -> Profile:
    """All runs of all profiles in one, C frames named alike (``align_native_frames``); refused when
    their comparable metadata differ (py-spy --native and perf count as one sampler)."""
    merged = Profile()
    origin: dict[str, str] = {}  # which input each merged metadata value came from
    for name, profile in profiles:
        for key in COMPARABLE_KEYS:
            differ = profile.metadata.get(key) != merged.metadata.get(key)
            if key == "sampler":
                differ = differ and instrument(profile.metadata) != instrument(merged.metadata)
            if key in profile.metadata and key in merged.metadata and differ:
                raise IncomparableProfiles(
                    f"{name}: {key} is {profile.metadata[key]!r} but {origin[key]} has "
                    f"{merged.metadata[key]!r}; profiles that differ in {key} cannot be merged"
                )
        for key, value in profile.metadata.items():
            if key not in merged.metadata:
                merged.metadata[key], origin[key] = value, name
    merged.runs = [run for runs in align_native_frames([p.runs for _, p in profiles]) for run in runs]
    samplers = dict.fromkeys(
        v for _, p in profiles if (v := p.metadata.get("sampler_version") or p.metadata.get("sampler"))
    )
    if len(samplers) > 1:  # py-spy --native and perf: say both
        merged.metadata["sampler_version"] = " + ".join(samplers)
    # Per-run details stay aligned with the runs (a differential profile reads each run's time per call).
    run_info = [info for _, profile in profiles for info in _run_info(profile)]
    if any(run_info):
        merged.metadata["run_info"] = run_info
    # A --lines profile's source view: each function's source as the first profile with it kept it.
    kept: dict[tuple[str, str], dict[str, Any]] = {}
    for _, profile in profiles:
        for source in profile.metadata.get("sources", []):
            kept.setdefault((source["name"], source["file"]), source)
    if kept:
        merged.metadata["sources"] = list(kept.values())
    merged.metadata["runs"] = len(merged.runs)
    merged.metadata["samples"] = merged.samples
    merged.metadata["merged_from"] = [name for name, _ in profiles]
    return merged
