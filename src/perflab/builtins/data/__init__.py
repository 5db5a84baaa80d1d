"""The standard JSON documents the built-in case studies parse, checked against their checksums.

twitter.json (string-heavy, much non-ASCII text), citm_catalog.json (objects and integers) and
canada.json (floats) are the documents JSON parsers are usually compared on. A document whose
bytes changed would silently measure something else, so every read is checked against
SHA256SUMS in this folder.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

FOLDER = Path(__file__).parent


class CorruptDataError(Exception):
    """A data file is missing or its bytes do not match the checksum manifest."""


def json_document(name: str, folder: Path = FOLDER) -> bytes:
    """The bytes of the document ``name``, after checking them against ``folder/SHA256SUMS``."""
    path = folder / name
    expected = _manifest(folder).get(name)
    if expected is None:
        raise CorruptDataError(f"{path}: not listed in {folder / 'SHA256SUMS'}")
    if not path.is_file():
        raise CorruptDataError(f"{path}: missing; reinstall perflab to restore it")
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise CorruptDataError(f"{path}: corrupted (sha256 {actual[:12]}..., expected "
                               f"{expected[:12]}...); reinstall perflab to restore it")
    return data


def _manifest(folder: Path) -> dict[str, str]:
    """SHA256SUMS as written by ``sha256sum``: one 'HEX  NAME' line per file."""
    lines = (folder / "SHA256SUMS").read_text().splitlines()
    return {name: digest for digest, name in (line.split(maxsplit=1) for line in lines if line.strip())}
