"""Merging stores: each laptop's or CI job's SQLite file into one team store (``perflab import``).

A run keeps its stable id (``uid``) and the time it was first stored wherever it is copied, so
merging the same store twice, or two stores that both hold a run, stores it once. Its profiles and
the marks people put on change points come along.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perflab.results.store import Store

SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite_file(path: str | Path) -> bool:
    """A SQLite database file (a perflab store to merge, not a results file to import)."""
    try:
        with open(path, "rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


@dataclass(frozen=True)
class Merged:
    copied: int  # runs stored in the target
    present: int  # runs the target held already
    profiles: int
    marks: int


def merge_store(source: str | Path, target: Store) -> Merged:
    """Copy every run of the store at ``source`` (opened read-only, never changed) that ``target``
    lacks, with its profiles; then the change marks (a later mark on a change point wins)."""
    copied = present = profiles = 0
    with Store.open(Path(source), read_only=True) as origin, origin.snapshot():
        for run_id, (uid, created) in origin.uids().items():
            if target.find_uid(uid) is not None:
                present += 1
                continue
            run = origin.run(run_id)
            assert run is not None  # listed by uids() in the same snapshot
            new_id = target.save(origin.result(run_id), source=run.source, uid=uid, created=created)
            copied += 1
            for case, contender in origin.profiles_of_run(run_id):
                profile = origin.profile(run_id, case, contender)
                if profile is not None:
                    target.save_profile(new_id, case, contender, profile)
                    profiles += 1
        known = {
            (m.benchmark, m.case, m.contender, m.machine_id, m.python_id, m.after): m for m in target.change_marks()
        }
        marks = 0
        for mark in origin.change_marks():
            key = (mark.benchmark, mark.case, mark.contender, mark.machine_id, mark.python_id, mark.after)
            if key not in known or known[key].marked < mark.marked:
                target.mark_change(mark)
                marks += 1
    return Merged(copied, present, profiles, marks)
