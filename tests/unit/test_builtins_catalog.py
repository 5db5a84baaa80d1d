"""The built-in case studies as a whole: listed by name, safe to import by path, data checked."""

import hashlib
import shutil
import sys

import pytest

from perflab import builtins
from perflab.builtins.data import FOLDER, CorruptDataError, json_document


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
