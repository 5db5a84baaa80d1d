"""Export a profile as speedscope JSON (https://www.speedscope.app/file-format-schema.json), one sampled profile."""

from __future__ import annotations

import json
from typing import Any

from perflab import __version__
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile, weight_unit
from perflab.profile.processors import with_operation_frame

SCHEMA_URL = "https://www.speedscope.app/file-format-schema.json"


def render(profile: Profile, name: str = "perflab profile") -> str:
    """The profile as speedscope JSON text."""
    return json.dumps(_document(profile, name))


def _document(profile: Profile, name: str = "perflab profile") -> dict[str, Any]:
    index: dict[str, int] = {}
    samples, weights = [], []
    for stack, count in sorted(with_operation_frame(profile.merged()).items(), key=lambda item: -item[1]):
        samples.append([index.setdefault(label, len(index)) for label in stack])
        weights.append(count)
    frames = []
    for label in index:
        frame = parse_frame(label)
        entry: dict[str, Any] = {"name": frame.name}
        if frame.file:
            entry["file"] = frame.file
        if frame.line is not None:
            entry["line"] = frame.line
        frames.append(entry)
    return {
        "$schema": SCHEMA_URL,
        "shared": {"frames": frames},
        "profiles": [
            {
                "type": "sampled",
                "name": name,
                "unit": "bytes" if weight_unit(profile.metadata) == "bytes" else "none",
                "startValue": 0,
                "endValue": sum(weights),
                "samples": samples,
                "weights": weights,
            }
        ],
        "name": name,
        "activeProfileIndex": 0,
        "exporter": f"perflab {__version__}",
    }
