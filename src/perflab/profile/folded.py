"""Folded stacks: the text format of FlameGraph's stackcollapse scripts and of ``py-spy --format raw``.

One line per distinct stack: frames from the outermost to the innermost, separated by ``;``, then a
space and the number of samples::

    measured_region (worker.py:37);dumps (<stdlib>/json/__init__.py:183) 42
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

Stack = tuple[str, ...]


class FoldedFormatError(Exception):
    """A folded file that cannot be read; the message names the file and line."""


def parse_folded(text: str, source: str = "<folded>") -> Counter[Stack]:
    """Stacks and their sample counts; a malformed or truncated line raises FoldedFormatError."""
    stacks: Counter[Stack] = Counter()
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        frames, _, count = line.rstrip("\r").rpartition(" ")
        if not frames or not count.isdigit() or not frames.strip(";"):
            truncated = number == len(lines) and not text.endswith("\n")
            problem = "truncated last line" if truncated else "not a folded stack line"
            raise FoldedFormatError(
                f"{source}:{number}: {problem} (expected 'frame;frame;... COUNT'): {_preview(line)}"
            )
        stacks[tuple(frames.split(";"))] += int(count)
    return stacks


def read_folded(path: str | Path) -> Counter[Stack]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FoldedFormatError(f"{path}: cannot read folded stacks: {error}") from error
    return parse_folded(text, str(path))


def format_folded(stacks: Mapping[Stack, int]) -> str:
    """Folded text, heaviest stacks first (ties in stack order, so the output is reproducible).

    The format cannot hold a frame label with ';' or a line break (a function can be given any
    name), so those become ':' and a space.
    """
    ordered = sorted(stacks.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{';'.join(map(_foldable, stack))} {count}\n" for stack, count in ordered if count > 0)


def _foldable(label: str) -> str:
    return label.replace(";", ":").replace("\r", " ").replace("\n", " ")


def _preview(line: str, limit: int = 60) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "...")


def merge_stacks(runs: Iterable[Mapping[Stack, int]]) -> Counter[Stack]:
    merged: Counter[Stack] = Counter()
    for run in runs:
        merged.update(run)
    return merged
