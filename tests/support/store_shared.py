"""What the tiers of test_store.py share (split by tier from one file)."""

from __future__ import annotations

import hashlib
import sqlite3


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def foreign_sqlite(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE contacts (name TEXT)")
    db.execute("INSERT INTO contacts VALUES ('ada')")
    db.commit()
    db.close()
