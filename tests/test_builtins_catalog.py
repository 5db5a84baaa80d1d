"""The built-in case studies as a whole: listed by name, safe to import by path, data checked."""

import hashlib
import shutil
import subprocess
import sys

import pytest

from perflab import builtins
from perflab.builtins.data import FOLDER, CorruptDataError, json_document

CASE_STUDIES = [
    "json_dumps",
    "json_loads",
    "logging_messages",
    "crypto_aes",
    "json_dumps_ensure_ascii",
    "uuids",
    "http_parse",
]


def test_perflab_list_shows_every_case_study_with_one_line():
    listing = subprocess.run(
        [sys.executable, "-m", "perflab", "list"], capture_output=True, text=True, check=True
    ).stdout
    for name in CASE_STUDIES:
        line = next(line for line in listing.splitlines() if line.split()[0] == name)
        assert builtins.summary(name)[:30] in line  # the terminal may wrap the rest


def test_no_builtin_shadows_a_standard_library_module():
    # The builtins folder goes first on sys.path when one is loaded: a "logging.py" there would
    # replace the real logging module for everything imported after it.
    assert not set(builtins.names()) & set(sys.stdlib_module_names)


def test_the_shipped_documents_match_their_checksums():
    for name in ("twitter.json", "citm_catalog.json", "canada.json"):
        assert json_document(name).startswith(b"{")


def test_a_corrupted_document_is_reported_with_its_name(tmp_path):
    shutil.copytree(FOLDER, tmp_path / "data", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    document = tmp_path / "data" / "canada.json"
    data = bytearray(document.read_bytes())
    data[1000] ^= 1  # one flipped bit
    document.write_bytes(bytes(data))
    assert hashlib.sha256(data).hexdigest() not in (tmp_path / "data" / "SHA256SUMS").read_text()
    with pytest.raises(CorruptDataError, match=r"canada\.json: corrupted \(sha256 .*reinstall perflab"):
        json_document("canada.json", folder=tmp_path / "data")


def test_a_missing_or_unlisted_document_is_reported(tmp_path):
    shutil.copytree(FOLDER, tmp_path / "data", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (tmp_path / "data" / "twitter.json").unlink()
    with pytest.raises(CorruptDataError, match=r"twitter\.json: missing"):
        json_document("twitter.json", folder=tmp_path / "data")
    with pytest.raises(CorruptDataError, match=r"other\.json: not listed in .*SHA256SUMS"):
        json_document("other.json", folder=tmp_path / "data")
