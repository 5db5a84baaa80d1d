"""Profiles kept with stored runs beyond ``perflab run --profile``: the ones ``perflab compare
--profile/--html`` takes (each side's profile next to the run of that side), and the profiles that
travel with a run through ``perflab export`` / ``perflab import`` (a ``NAME.profiles.json`` file
beside the exported ``NAME.json``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from perflab.profile.model import Profile
from perflab.profile.side_profiles import CaseProfiles
from perflab.results.model import RunResult
from perflab.results.store import Store

SCHEMA = "perflab.stored-profiles/1"


def side_runs(result: RunResult, run_ids: Sequence[int]) -> dict[str, tuple[int, str]]:
    """Side name -> (the stored run holding it, its contender there). A comparison of revisions or
    interpreters is stored as one run per side (``RunResult.per_side``, in the order of ``sides``);
    a comparison of contenders as one run whose sides are its contenders."""
    if result.metadata.get("sides") and len(run_ids) == len(result.sides):
        return {name: (run_id, side["contender"]) for (name, side), run_id in zip(result.sides.items(), run_ids)}
    return {name: (run_ids[0], name) for name in {c.contender for c in result.cells}} if run_ids else {}


def keep_comparison_profiles(
    db: Path | str, run_ids: Sequence[int], result: RunResult, profiles: Sequence[CaseProfiles]
) -> int:
    """Store each side's profile of every profiled case with the run of that side; returns how many."""
    runs = side_runs(result, run_ids)
    kept = 0
    with Store.open(db, create=False) as store:
        for entry in profiles:
            for side, profile in ((entry.reference, entry.reference_profile), (entry.other, entry.other_profile)):
                if side in runs and profile.runs:
                    run_id, contender = runs[side]
                    store.save_profile(run_id, entry.case, contender, profile)
                    kept += 1
    return kept


def sidecar(results_file: Path) -> Path:
    """Where the profiles of an exported run are written: NAME.profiles.json beside NAME.json."""
    return results_file.with_name(results_file.stem + ".profiles.json")


def export_profiles(store: Store, run_id: int, results_file: Path) -> Path | None:
    found = [
        (case, contender, store.profile(run_id, case, contender)) for case, contender in store.profiles_of_run(run_id)
    ]
    stored = [(case, contender, profile) for case, contender, profile in found if profile is not None]
    if not stored:
        return None
    path = sidecar(results_file)
    path.write_text(
        json.dumps(
            {
                "schema": SCHEMA,
                "profiles": [
                    {"case": case, "contender": contender, "profile": profile.to_json()}
                    for case, contender, profile in stored
                ],
            }
        )
    )
    return path


def import_profiles(store: Store, run_id: int, results_file: Path) -> int:
    """Store the profiles exported beside ``results_file`` (if any) with run ``run_id``; how many."""
    path = sidecar(results_file)
    if not path.is_file():
        return 0
    data = json.loads(path.read_text())
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not a perflab profiles file ({SCHEMA})")
    for item in data["profiles"]:
        store.save_profile(run_id, item["case"], item["contender"], Profile.from_json(item["profile"]))
    return len(data["profiles"])
