"""Sides: where the code of one compared column comes from.

A side is a benchmark file, the contender in it, the interpreter that runs it and the
directories imported first. Contenders of one file are sides that differ by contender; the same
benchmark on two git revisions are sides that differ by file and import roots; the same
benchmark under two interpreters are sides that differ by interpreter. The runner treats all of
them alike: interleaved rounds, paired ratios, one verdict table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field


@dataclass
class Side:
    name: str  # the column's name in results: contender, revision or interpreter
    file: str
    contender: str
    python: str = sys.executable
    sys_path: list[str] = field(default_factory=list)

    def shares_process_with(self, other: Side) -> bool:
        """Whether both can run in one worker (same file, interpreter and imports)."""
        return (self.file, self.python, self.sys_path) == (other.file, other.python, other.sys_path)


def contender_sides(file: str, contenders: list[str], python: str = sys.executable) -> list[Side]:
    return [Side(name, file, name, python) for name in contenders]
