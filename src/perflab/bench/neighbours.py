"""Where a benchmark file's neighbours are imported from: its folder, first on ``sys.path`` (as
``python script.py`` would put it), unless the job put it there already, behind a revision's code
(perflab.measure.worktrees.search_path): a benchmark beside the working tree's copy of the project
must not import that copy instead of the revision's.

Standard library only, and os.path, not pathlib: every worker runs it (see perflab.bench).
"""

from __future__ import annotations

import os
import sys


def importable_neighbours(folder: str) -> None:
    """``folder`` (a real path) first on ``sys.path``, unless it is on it already."""
    if not any(os.path.realpath(entry or ".") == folder for entry in sys.path):
        sys.path.insert(0, folder)
