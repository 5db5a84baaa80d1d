"""Processors: pure functions from raw sampled stacks to stacks of the operation alone.

- ``trim_to_operation`` keeps what runs below the worker's ``measured_region`` and drops the rest
  (harness, imports, calibration, the interpreter's start-up), so a profile is the operation's.
- ``normalize_stacks`` rewrites paths relative to named roots (``<project>``, ``<site-packages>``,
  ``<stdlib>``) and folds native frames to one node per C function, so profiles taken from two
  checkouts, machines or runs line up frame for frame (``project_root`` finds what ``<project>``
  stands for: the git work tree of the benchmark file).
- ``align_native_frames`` names each C function one way across profiles taken by different
  samplers (py-spy --native: ``f (_json.c)``, the source file; perf: ``f.isra.0 (_json....so)``,
  the symbol and its library), so that they merge and diff frame for frame.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perflab import git
from perflab.profile.folded import Stack
from perflab.profile.frames import Frame, native_function, parse_frame

MEASURED_REGION = "measured_region"
# The label of samples whose innermost frame is measured_region itself (an empty trimmed stack) where
# a format needs a frame: the harness loop, or C code the operation called directly when native
# frames were not collected.
OPERATION_SELF = "[measured_region]"
# Where measured_region is defined (perflab.bench.worker.region); profiles saved before name the files
# that held it earlier.
_WORKER_FILES = tuple(
    os.path.join("perflab", *parts)
    for parts in (("bench", "worker", "region.py"), ("bench", "worker", "jobs.py"), ("worker.py",))
)
# perflab's own frames that a pyperf script's benchmark (its Runner-compatible recorder) or an asv
# suite's runs under: harness, not operation, like the worker's loop.
_RECORDER_FILES = (
    os.path.join("perflab", "bench", "pyperf_script.py"),
    os.path.join("perflab", "pyperf_script.py"),
    os.path.join("perflab", "bench", "asv_suite.py"),
)
# Where an asv benchmark's setup runs again between its timed calls (perflab.bench.asv_suite):
# samples below it are set-up, not the operation, though inside the measured region.
_ASV_SETUP = (os.path.join("perflab", "bench", "asv_suite.py"), "redo_setup")
_INSTALL_DIRS = ("site-packages", "dist-packages")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]+$")


@dataclass
class Trimmed:
    stacks: Counter[Stack]
    outside: int  # samples that were not in the measured region (harness, set-up, idle)


def trim_to_operation(stacks: Mapping[Stack, int]) -> Trimmed:
    """The part of each stack below ``measured_region``; stacks that never enter it are dropped.

    A sample whose innermost frame is ``measured_region`` itself (its loop, or C code it calls
    directly when native frames are off) is kept as an empty stack: time of the operation that
    no deeper frame explains. The recorder frames a pyperf script's function (or an asv suite's)
    runs under are harness too: they are dropped from the operation's stack; an asv benchmark's
    setup between its timed calls is outside, as the harness is.
    """
    trimmed: Counter[Stack] = Counter()
    outside = 0
    for stack, count in stacks.items():
        position = next((i for i, label in enumerate(stack) if is_measured_region(label)), None)
        if position is None or any(_is_asv_setup(label) for label in stack[position + 1 :]):
            outside += count
            continue
        # recorder frames are harness wherever a sample shows them (a torn stack can put one below
        # another frame), not only at the top of the operation
        trimmed[tuple(f for f in stack[position + 1 :] if not parse_frame(f).file.endswith(_RECORDER_FILES))] += count
    return Trimmed(trimmed, outside)


def with_operation_frame(stacks: Mapping[Stack, int]) -> Counter[Stack]:
    """Empty stacks as ``(OPERATION_SELF,)``: for formats (folded) that cannot hold an empty stack."""
    return Counter({stack or (OPERATION_SELF,): count for stack, count in stacks.items()})


def without_operation_frame(stacks: Mapping[Stack, int]) -> Counter[Stack]:
    """The inverse of ``with_operation_frame``."""
    result: Counter[Stack] = Counter()
    for stack, count in stacks.items():
        result[() if stack == (OPERATION_SELF,) else stack] += count
    return result


def _is_asv_setup(label: str) -> bool:
    frame = parse_frame(label)
    return frame.file.endswith(_ASV_SETUP[0]) and frame.name.rpartition(".")[2] == _ASV_SETUP[1]


def is_measured_region(label: str) -> bool:
    frame = parse_frame(label)
    return frame.name == MEASURED_REGION and frame.file.endswith(_WORKER_FILES)


def path_roots(project: str | None, interpreter_paths: Mapping[str, str]) -> list[tuple[str, str]]:
    """(directory, name) pairs to shorten paths with, the most specific directory first."""
    roots = [(interpreter_paths[key], "<stdlib>") for key in ("stdlib", "platstdlib") if interpreter_paths.get(key)]
    roots += [
        (interpreter_paths[key], "<site-packages>") for key in ("purelib", "platlib") if interpreter_paths.get(key)
    ]
    if project:
        roots.append((project, "<project>"))
    unique = {os.path.normpath(directory): name for directory, name in roots}
    return sorted(unique.items(), key=lambda root: -len(root[0]))


def normalize_path(path: str, roots: list[tuple[str, str]]) -> str:
    """``<root>/relative/path`` for paths under a root; any ``site-packages`` directory counts too."""
    if path.startswith("<"):
        return path
    parts = path.replace("\\", "/").split("/")
    for marker in _INSTALL_DIRS:  # a virtualenv's packages inside the project are packages, not project code
        if marker in parts:
            return "/".join(["<site-packages>", *parts[len(parts) - parts[::-1].index(marker) :]])
    normalized = os.path.normpath(path)
    for directory, name in roots:
        if normalized == directory or normalized.startswith(directory + os.sep):
            return name + "/" + os.path.relpath(normalized, directory).replace(os.sep, "/")
    return path


def resolve_path(path: str, roots: list[tuple[str, str]]) -> str | None:
    """The file a path ``normalize_path`` shortened names on this machine, or None where no root has it."""
    root, _, relative = path.partition("/")
    if not root.startswith("<"):
        return path
    candidates = (os.path.join(directory, relative) for directory, name in roots if name == root and relative)
    return next((candidate for candidate in candidates if os.path.isfile(candidate)), None)


def normalize_frame(label: str, roots: list[tuple[str, str]]) -> str:
    frame = parse_frame(label)
    if not frame.file:
        return label
    if frame.is_python:
        return Frame(frame.name, normalize_path(frame.file, roots), frame.line).label
    # Native code: one node per C function (py-spy gives the line of the call inside it, which
    # would split a function into several nodes), its source file without the build directory,
    # and unresolved addresses (different in every process, by ASLR) as [unknown] in their library.
    name = "[unknown]" if _ADDRESS.match(frame.name) else frame.name
    return Frame(name, os.path.basename(frame.file), None).label


def normalize_stacks(stacks: Mapping[Stack, int], roots: list[tuple[str, str]]) -> Counter[Stack]:
    cache: dict[str, str] = {}
    normalized: Counter[Stack] = Counter()
    for stack, count in stacks.items():
        new = []
        for label in stack:
            if label not in cache:
                cache[label] = normalize_frame(label, roots)
            new.append(cache[label])
        normalized[tuple(new)] += count
    return normalized


def align_native_frames(profiles: Sequence[Sequence[Mapping[Stack, int]]]) -> list[list[Counter[Stack]]]:
    """Each profile's runs with every C frame labelled by its function as written in the source
    (perflab.profile.frames.native_function) and the file of the first frame of that function
    seen, the first profile's first: one frame per C function whichever sampler took the profile.
    Python frames and unresolved ones (``[unknown] (library)``, already alike) keep their labels."""
    first: dict[str, str] = {}  # C function -> its label in every profile
    labels: dict[str, str] = {}  # a label as given -> aligned

    def aligned(label: str) -> str:
        if label not in labels:
            frame = parse_frame(label)
            function = None if frame.is_python else native_function(frame.name)
            labels[label] = (
                label if function is None else first.setdefault(function, Frame(function, frame.file, None).label)
            )
        return labels[label]

    result: list[list[Counter[Stack]]] = []
    for runs in profiles:
        result.append([Counter() for _ in runs])
        for run, relabelled in zip(runs, result[-1]):
            for stack, count in run.items():
                relabelled[tuple(map(aligned, stack))] += count
    return result


def project_root(directory: str | Path) -> str:
    """The git work tree holding ``directory`` (or a file's directory), else that directory: ``<project>``."""
    directory = Path(directory).resolve()
    directory = directory if directory.is_dir() else directory.parent
    return str(git.top_level(directory) or directory)
