"""Export a profile in the Firefox Profiler's processed profile format (https://profiler.firefox.com:
open the file there, or drag it onto the page; nothing is uploaded unless you ask it to).

Of the formats the Firefox Profiler reads, the processed profile is the one that keeps what a
perflab profile holds: the call tree (a stack table of prefixes), each stack's weight (samples,
bytes or allocations, in the samples table's weight column), the file and line of Python frames,
and a category per frame (Python or native). Folded stacks, which it also reads, keep only names
and counts. The format is documented by its type definitions, src/types/profile.ts of
firefox-devtools/profiler; this writes version 70 (commit df31314, 2026-08), which the profiler
upgrades as it moves on. Stacks are aggregated over the profile's runs (as in the flame graph), so
the timeline is one sample per distinct stack in the order of their weight, not a time order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from perflab import __version__
from perflab.profile.diff import ProfileDiff
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile, is_allocation_profile, weight_unit
from perflab.profile.processors import OPERATION_SELF, with_operation_frame

PROCESSED_PROFILE_VERSION = 70
GECKO_PROFILE_VERSION = 36  # the raw format's version of the same profiler release
OTHER, PYTHON, NATIVE = 0, 1, 2
CATEGORIES = [  # "Other" first and grey: the profiler's default category
    {"name": "Other", "color": "grey", "subcategories": ["Other"]},
    {"name": "Python", "color": "yellow", "subcategories": ["Other"]},
    {"name": "Native", "color": "blue", "subcategories": ["Other"]},
]


def render(profile: Profile, name: str = "perflab profile") -> str:
    """The profile as the Firefox Profiler's processed profile JSON text."""
    return json.dumps(document(profile, name))


def document(profile: Profile, name: str = "perflab profile") -> dict[str, Any]:
    tables = _Tables(by_line=bool(profile.metadata.get("lines")))
    unit = weight_unit(profile.metadata)
    weight_type = "bytes" if unit == "bytes" else "samples"  # allocations: a count, as samples are
    interval = _interval_ms(profile)
    stacks = with_operation_frame(profile.merged())
    thread = _thread(tables, name, 0, [(stack, n) for stack, n in stacks.items()], weight_type, interval)
    return _profile(_meta(profile, name, interval), tables, [thread])


def render_diff(diff: ProfileDiff, before: Profile, name: str) -> str:
    """A differential profile as the Firefox Profiler's compare view makes one: a thread per side and
    a comparison thread where the first side's weights are negative. The weights are perflab's
    (perflab.profile.diff): milliseconds per call of the operation in each call path's own frame,
    which compare across sides where raw sample counts do not."""
    tables = _Tables(by_line=False)  # the diff's call paths are functions, without lines
    sides = [
        [(node.path or (OPERATION_SELF,), node.a_self * 1000) for node in diff.nodes.values() if node.a_self],
        [(node.path or (OPERATION_SELF,), node.b_self * 1000) for node in diff.nodes.values() if node.b_self],
    ]
    threads = [
        _thread(tables, diff.a_name, 0, sides[0], "tracing-ms", 1.0),
        _thread(tables, diff.b_name, 1, sides[1], "tracing-ms", 1.0),
        _thread(
            tables,
            f"{diff.b_name} - {diff.a_name}",
            2,
            [(stack, -weight) for stack, weight in sides[0]] + sides[1],
            "tracing-ms",
            1.0,
            process_type="comparison",
        ),
    ]
    return json.dumps(_profile(_meta(before, name, 1.0), tables, threads))


def _profile(meta: dict[str, Any], tables: _Tables, threads: list[dict[str, Any]]) -> dict[str, Any]:
    meta["initialVisibleThreads"] = list(range(len(threads)))
    meta["initialSelectedThreads"] = [len(threads) - 1]  # the comparison of a diff; the one thread otherwise
    return {"meta": meta, "libs": [], "pages": [], "shared": tables.shared(), "threads": threads}


def _thread(
    tables: _Tables,
    name: str,
    tid: int,
    weighted: Sequence[tuple[tuple[str, ...], float]],
    weight_type: str,
    interval: float,
    process_type: str = "default",
) -> dict[str, Any]:
    """A thread of one sample per call stack, the heaviest first (the timeline is not a time order)."""
    ordered = sorted(weighted, key=lambda item: -abs(item[1]))
    return {
        "processType": process_type,
        "processStartupTime": 0,
        "processShutdownTime": None,
        "registerTime": 0,
        "unregisterTime": None,
        "pausedRanges": [],
        "name": name,
        "isMainThread": True,
        "pid": str(tid),
        "tid": tid,
        "samples": {
            "stack": [tables.stack(stack) for stack, _ in ordered],
            "time": [i * interval for i in range(len(ordered))],
            "weight": [weight for _, weight in ordered],
            "weightType": weight_type,
            "length": len(ordered),
        },
        "markers": {"data": [], "name": [], "startTime": [], "endTime": [], "phase": [], "category": [], "length": 0},
    }


def _interval_ms(profile: Profile) -> float:
    """Milliseconds between samples at the sampler's rate; 1 for allocation profiles (no rate)."""
    rate = profile.metadata.get("rate")
    if is_allocation_profile(profile.metadata) or not isinstance(rate, (int, float)) or rate <= 0:
        return 1.0
    return 1000 / rate


def _meta(profile: Profile, name: str, interval: float) -> dict[str, Any]:
    python = profile.metadata.get("python") or {}
    return {
        "interval": interval,
        "startTime": 0,
        "processType": 0,
        "product": name,
        "stackwalk": 1 if profile.metadata.get("native") else 0,
        "version": GECKO_PROFILE_VERSION,
        "preprocessedProfileVersion": PROCESSED_PROFILE_VERSION,
        "categories": CATEGORIES,
        "markerSchema": [],
        "symbolicated": True,
        "importedFrom": f"perflab {__version__} (Python {python.get('version', '?')})",
        "usesOnlyOneStackType": True,  # Python and native frames are one stack: no JS filter
        "sourceCodeIsNotOnSearchfox": True,
    }


class _Tables:
    """The shared tables, each entry made once: strings, source files, functions, frames, stacks."""

    def __init__(self, by_line: bool) -> None:
        self.by_line = by_line  # a frame is a line of a function (--lines): the function has no one line
        self.strings: dict[str, int] = {}
        self.sources: dict[str, int] = {}
        self.funcs: dict[tuple[str, str, int | None], int] = {}  # name, file, line unless by line
        self.func_columns: dict[str, list[Any]] = {"name": [], "source": [], "lineNumber": []}
        self.frames: dict[str, int] = {}
        self.frame_columns: dict[str, list[Any]] = {"category": [], "func": [], "line": []}
        self.stack_rows: dict[tuple[int | None, int], int] = {}
        self.stack_columns: dict[str, list[int]] = {"frame": [], "prefixOffset": []}

    def string(self, text: str) -> int:
        return self.strings.setdefault(text, len(self.strings))

    def source(self, file: str) -> int:
        if file not in self.sources:
            self.sources[file] = len(self.sources)
            self.string(file)
        return self.sources[file]

    def frame(self, label: str) -> int:
        found = self.frames.get(label)
        if found is not None:
            return found
        frame = parse_frame(label)
        line = None if self.by_line else frame.line
        key = (frame.name, frame.file, line)
        func = self.funcs.get(key)
        if func is None:
            func = self.funcs[key] = len(self.funcs)
            self.func_columns["name"].append(self.string(frame.name))
            self.func_columns["source"].append(self.source(frame.file) if frame.file else None)
            self.func_columns["lineNumber"].append(line)
        category = OTHER if not frame.file else PYTHON if frame.is_python else NATIVE
        self.frame_columns["category"].append(category)
        self.frame_columns["func"].append(func)
        self.frame_columns["line"].append(frame.line)
        self.frames[label] = len(self.frames)
        return self.frames[label]

    def stack(self, labels: tuple[str, ...]) -> int:
        """The stack table's row of a call stack (root first), its prefixes added as needed."""
        prefix: int | None = None
        for label in labels:
            key = (prefix, self.frame(label))
            row = self.stack_rows.get(key)
            if row is None:
                row = self.stack_rows[key] = len(self.stack_rows)
                self.stack_columns["frame"].append(key[1])
                # the parent's distance back: parents come first, 0 is a root
                self.stack_columns["prefixOffset"].append(0 if prefix is None else row - prefix)
            prefix = row
        assert prefix is not None, "no stack is empty: the operation's own is (OPERATION_SELF,)"
        return prefix

    def shared(self) -> dict[str, Any]:
        frames, funcs = len(self.frames), len(self.funcs)
        none_per_frame, none_per_func = [None] * frames, [None] * funcs
        return {
            "stackTable": {**self.stack_columns, "length": len(self.stack_rows)},
            "frameTable": {
                "address": [-1] * frames,
                "lib": [-1] * frames,
                "inlineDepth": [0] * frames,
                **self.frame_columns,
                "subcategory": [0] * frames,
                "nativeSymbol": none_per_frame,
                "innerWindowID": none_per_frame,
                "column": none_per_frame,
                "originalLocation": none_per_frame,
                "length": frames,
            },
            "funcTable": {
                **self.func_columns,
                "isJS": [False] * funcs,
                "relevantForJS": [False] * funcs,
                "resource": [-1] * funcs,
                "columnNumber": none_per_func,
                "originalLocation": none_per_func,
                "length": funcs,
            },
            "resourceTable": {"name": [], "host": [], "type": [], "length": 0},
            "nativeSymbols": {"libIndex": [], "address": [], "name": [], "functionSize": [], "length": 0},
            "stringArray": list(self.strings),
            "sources": {
                "id": [None] * len(self.sources),
                "filename": [self.strings[file] for file in self.sources],
                "startLine": [1] * len(self.sources),
                "startColumn": [1] * len(self.sources),
                "sourceMapURL": [None] * len(self.sources),
                "content": [None] * len(self.sources),
                "length": len(self.sources),
            },
            "sourceLocationTable": {"source": [], "line": [], "column": [], "length": 0},
        }
