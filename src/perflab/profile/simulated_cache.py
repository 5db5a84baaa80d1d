"""Which C functions of a profile miss: cachegrind's simulated counts per function (``--metric
cache``), kept in the metadata of a profile of the same cell, and found again for a frame.

A profile names a C function as its sampler does (py-spy: ``encoder_listencode_obj (_json.c)``;
perf: ``encoder_listencode_obj.isra.0 (_json....so)``), callgrind by its symbol and recursion depth
(``encoder_listencode_obj.isra.0'2``): both go through perflab.profile.frames.native_function, and
callgrind's entries for one function are added up. Python frames have no counts of their own (the
interpreter's C code runs them), nor have unresolved addresses: such frames get none, never another
function's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perflab.profile.frames import native_function, parse_frame

KEY = "simulated_cache"  # the profile metadata's key: native function -> callgrind event -> count per call


def by_function(functions: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Callgrind's per-function counts (perflab.metrics.cache.CacheReading.functions) by the C
    function each entry stands for, added up; unresolved addresses left out."""
    counted: dict[str, dict[str, float]] = {}
    for name, events in functions.items():
        function = native_function(name)
        if function is None:
            continue
        total = counted.setdefault(function, {})
        for event, count in events.items():
            total[event] = total.get(event, 0.0) + count
    return counted


def keep(metadata: dict[str, Any], functions: Mapping[str, Mapping[str, float]]) -> None:
    """Keep a cell's per-function counts in its profile's metadata (saved, stored and merged with it)."""
    metadata[KEY] = by_function(functions)


def of_frame(metadata: Mapping[str, Any], label: str) -> dict[str, float] | None:
    """The simulated counts per call of the C function a frame is, or None: a Python frame, an
    unresolved one, a function the simulation did not keep, or a profile without them."""
    counted = metadata.get(KEY)
    frame = parse_frame(label)
    if not counted or frame.is_python or not frame.file:
        return None
    function = native_function(frame.name)
    return counted.get(function) if function else None
