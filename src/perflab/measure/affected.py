"""``perflab check --affected REV``: only the (case, contender) cells whose operation reaches what
the change since REV touched run; the rest are skipped, each with the reason.

What a cell reaches is traced, not sampled: a "reach" worker (perflab.bench.worker.reach) runs the
cell once on each side, the revision's worktree and the working tree, and reports every function
the process ran. Both sides, because a change can move the code a cell runs: a method deleted in
the working tree is reached only at the revision, a new helper only in the working tree. Stored
profiles are not used: a sampled profile leaves out the functions too short to be sampled, and a
slowdown there would be skipped.

A cell runs when, on either side, it ran a changed function or any code of a module whose own
code changed, when its reach could not be traced (an error, a program started: code in another
process is out of sight), or when the change cannot be mapped to functions at all
(perflab.measure.changed_code). Unknown means affected.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from pathlib import Path

from perflab.bench.protocol import ReachEvent, reach_job
from perflab.measure import changed_code
from perflab.measure.launcher import run_job
from perflab.measure.parallel_checks import side_by_side
from perflab.measure.settings import Settings
from perflab.measure.worktrees import CURRENT, checkouts, import_roots, repository_root, search_path

# Calls of the operation traced per cell: code that runs only from a later call on (a cache that
# fills, then is read) is reached by the second; beyond a few, what a call runs does not change
# for any benchmark perflab has seen.
CALLS = 3


@dataclass
class Selection:
    """Which cells run, per contender, and the others with why they are skipped."""

    changes: changed_code.Changes
    run: dict[str, list[str]] = field(default_factory=dict)  # contender -> its cases to run
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (case, contender, reason)

    def cases(self, contender: str, cases: list[str] | None) -> list[str]:
        """Of ``cases`` (None: every one selected), those to run for ``contender``."""
        chosen = self.run.get(contender, [])
        return [case for case in chosen if cases is None or case in cases]

    def summary(self, revision: str) -> str:
        """One line: what changed since the revision, and what it leaves to run."""
        ran = sum(len(cases) for cases in self.run.values())
        if self.changes.unmapped:
            return f"--affected {revision}: everything runs: {'; '.join(self.changes.unmapped)}"
        return (
            f"--affected {revision}: {self.changes.count()} since {revision}; "
            f"{ran} of {ran + len(self.skipped)} cell(s) reach them and run, {len(self.skipped)} skipped"
        )


@dataclass(frozen=True)
class _Side:
    file: Path
    sys_path: list[str]
    root: Path  # of the checkout, resolved: reached files under it are mapped by their path in it


def select(
    benchmark: Path, revision: str, commit: str, cases: list[str], contenders: list[str], settings: Settings
) -> Selection:
    """The cells of ``cases`` x ``contenders`` that the change from ``commit`` to the working tree can affect."""
    root = repository_root(benchmark.resolve())
    changes = changed_code.changes(root, commit, benchmark)
    selection = Selection(changes)
    cells = [(case, contender) for contender in contenders for case in cases]
    if changes.unmapped:
        decided = dict.fromkeys(cells, True)
    elif not changes.functions and not changes.modules:
        decided = dict.fromkeys(cells, False)  # the same code (or only comments): nothing to trace
    else:
        with checkouts(benchmark, [revision, CURRENT], from_revision=True) as found:  # as check measures them
            sides = [
                _Side(
                    checkout.benchmark,
                    search_path(import_roots(checkout.root), checkout.benchmark),
                    checkout.root.resolve(),
                )
                for checkout in (found[revision], found[CURRENT])
            ]
            calls = [
                functools.partial(_reaches, side, case, contender, changes, settings)
                for case, contender in cells
                for side in sides
            ]
            reached = side_by_side(calls)
        decided = {cell: any(reached[2 * index : 2 * index + 2]) for index, cell in enumerate(cells)}
    changed = changes.functions or changes.modules
    reason = f"reaches none of the {changes.count()}" if changed else "no function or module changed"
    for (case, contender), runs in decided.items():
        if runs:
            selection.run.setdefault(contender, []).append(case)
        else:
            selection.skipped.append((case, contender, reason))
    return selection


def _reaches(side: _Side, case: str, contender: str, changes: changed_code.Changes, settings: Settings) -> bool:
    """Whether the cell runs changed code on this side; True too when that cannot be told."""
    outcome = run_job(
        reach_job(str(side.file), contender, side.sys_path, case, CALLS), settings.timeout, settings.python
    )
    if not outcome.ok:
        return True  # (a cell that fails, or is not declared on this side, runs: check reports it)
    event: ReachEvent = outcome.of("reach")[0]
    if event["starts_programs"]:
        return True
    return any(_runs_changed(file, lines, side.root, changes) for file, lines in event["code"].items())


def _runs_changed(file: str, lines: list[int], root: Path, changes: changed_code.Changes) -> bool:
    path = _changed_path(file, root, changes)
    if path is None:
        return False
    if path in changes.modules:
        return True
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return True  # what ran there cannot be told apart
    return any(changed_code.unit_at(tree, line) in changes.functions[path] for line in lines)


def _changed_path(file: str, root: Path, changes: changed_code.Changes) -> str | None:
    """The changed file (relative to the repository) that ``file`` is a copy of, if any: the file
    itself in the checkout, or an installed copy of it (``src/pkg/mod.py`` as ``.../pkg/mod.py``)."""
    changed = changes.modules | changes.functions.keys()
    try:
        relative = Path(file).resolve().relative_to(root).as_posix()
    except (ValueError, OSError):
        relative = None
    if relative is not None:
        return relative if relative in changed else None
    return next((path for path in changed if file.endswith("/" + path.removeprefix("src/"))), None)
