"""The build-to-build spread: two builds of one source can time a few percent apart (code layout,
link order, PGO or LTO), so a comparison across built revisions says how far two builds of its
base revision time apart. The base revision is built a second time (a replica entry of the build
cache) and the two builds are measured A/A, interleaved and paired like any comparison; the
spread is the case whose interval reaches farthest from 1.

Each case's A/A is kept in the base build's cache entry, keyed by the benchmark file's bytes, the
contender and the timing settings (the entry's own key holds the rest: source tree, interpreter,
build command), so it is measured once per base revision and settings, and a re-measurement of
some cases (check --confirm) finds them there. It goes when that build is pruned.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from pathlib import Path

from perflab.measure import builds
from perflab.measure.runner import run_sides
from perflab.measure.settings import Settings
from perflab.measure.sides import Side
from perflab.measure.worktrees import search_path
from perflab.results.quantities import BuildSpread, Interval

SPREADS = "spreads"  # the folder of A/A results in the base build's cache entry


def kept_file(folder: Path, base: Side, settings: Settings) -> Path:
    """Where the base build's entry (``folder``) keeps the A/A of this benchmark file, contender and
    timing settings (an A/A of two quick rounds, ±60%, kept for a later run at the defaults widened
    that run's gate threshold as much)."""
    key = hashlib.sha256(Path(base.file).read_bytes())
    key.update(base.contender.encode())
    timing = (settings.precision, settings.max_time, settings.value_time, settings.values, settings.warmups)
    key.update(repr((*timing, settings.min_rounds, settings.max_rounds)).encode())
    return folder / SPREADS / f"{key.hexdigest()[:24]}.json"


def measure(
    repository: Path, base: Side, built: builds.Environment, cases: list[str], settings: Settings, choice: builds.Choice
) -> BuildSpread | None:
    """The spread of ``base`` (a built revision's side, ``built`` its environment) on ``cases``:
    each case's A/A kept from an earlier run, else its second build made and the cases not kept
    measured now. None when the A/A was interrupted (Ctrl-C)."""
    kept = kept_file(built.folder, base, settings)
    ratios = {
        case: Interval(*bounds) for case, bounds in (json.loads(kept.read_text()) if kept.is_file() else {}).items()
    }
    missing = [case for case in cases if case not in ratios]
    if missing:
        second = builds.environment(repository, base.name, settings.python, choice, replica=1)
        say = choice.on_progress or (lambda message: None)
        say(f"{base.name}: measuring its two builds A/A for the build-to-build spread")
        imports = search_path([str(second.site_packages)], Path(base.file))
        sides = [replace(base, name="build 1"), replace(base, name="build 2", python=second.python, sys_path=imports)]
        aa = run_sides("A/A", sides, missing, settings)
        if aa.interrupted:
            return None
        measured = {c.case: c.comparison.ratio for c in aa.comparisons}
        ratios.update(measured)
        # A case without an interval (too few rounds) is measured again next time.
        finite = {case: ratio for case, ratio in ratios.items() if ratio.low > 0 and math.isfinite(ratio.high)}
        kept.parent.mkdir(exist_ok=True)
        kept.write_text(json.dumps({case: [r.value, r.low, r.high] for case, r in finite.items()}))
    spreads = [BuildSpread(base.name, case, ratios[case], cached=not missing) for case in cases if case in ratios]
    return max(spreads, key=lambda spread: spread.spread) if spreads else None
