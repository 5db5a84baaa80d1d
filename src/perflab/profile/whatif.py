"""What-if (Amdahl's law): the whole operation's speedup if some frames' self time got k times faster.

If the matched frames hold a share s of the operation's samples as their own (self) time, making
that time k times faster leaves 1 - s + s/k of the time, a speedup of 1 / (1 - s + s/k). The
speedup rises with s, so the interval of s (across runs, see perflab.profile.shares) maps to the
interval of the speedup by its bounds. Only self time is scaled: the frames' callees keep their time.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perflab.profile.folded import Stack
from perflab.profile.frames import parse_frame
from perflab.profile.shares import per_run_counts, share_intervals
from perflab.results.quantities import Interval


class WhatIfError(Exception):
    """A --what-if that is malformed or names no frame of the profile."""


@dataclass(frozen=True)
class WhatIf:
    pattern: str
    factor: float  # k: how many times faster the frames' self time becomes
    frames: list[str]  # the frames the pattern matched
    share: Interval  # their summed self share
    speedup: Interval  # predicted speedup of the whole operation


def parse_what_if(text: str) -> tuple[str, float]:
    """'FRAME=2x' -> ('FRAME', 2.0); 'inf' means the frames' self time disappears."""
    pattern, equals, factor_text = text.rpartition("=")
    factor_text = factor_text.strip().lower().removesuffix("x")
    try:
        factor = float(factor_text)
    except ValueError:
        factor = math.nan
    if not equals or not pattern.strip() or not factor > 0:
        raise WhatIfError(
            f"--what-if {text!r}: expected FRAME=Kx with K > 0 (e.g. 'encoder_call=2x', "
            "'*escape*=1.5x', 'slow_func=inf')"
        )
    return pattern.strip(), factor


def matches(pattern: str, label: str) -> bool:
    """A frame matches its function name or full label, exactly or as a shell-style pattern."""
    name = parse_frame(label).name
    return pattern in (name, label) or fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(label, pattern)


def predict(runs: Sequence[Mapping[Stack, int]], pattern: str, factor: float) -> WhatIf:
    frames, own, _, samples = per_run_counts(runs)
    selected = [i for i, label in enumerate(frames) if matches(pattern, label)]
    if not selected:
        names = sorted({parse_frame(label).name for label in frames})
        close = difflib.get_close_matches(pattern, names, n=3)
        hint = (
            f" (did you mean {', '.join(close)}?)"
            if close
            else " (a name from the profile, or a pattern like '*escape*')"
        )
        raise WhatIfError(f"--what-if {pattern!r}: no frame of the profile matches{hint}")
    share, low, high = (float(x[0]) for x in share_intervals(own[selected].sum(axis=0), samples))
    return WhatIf(
        pattern,
        factor,
        [frames[i] for i in selected],
        Interval(share, low, high),
        Interval(_amdahl(share, factor), _amdahl(low, factor), _amdahl(high, factor)),
    )


def _amdahl(share: float, factor: float) -> float:
    remaining = 1 - share + (share / factor if math.isfinite(factor) else 0.0)
    return 1 / remaining if remaining > 0 else math.inf
