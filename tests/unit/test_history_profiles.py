"""Profiles stored with runs (`perflab run --profile`) and attached to the change points of `perflab history`."""

from __future__ import annotations

import io
from collections import Counter

from rich.console import Console
from support.store_results import synthetic_result

from perflab.cli.profile import store_profile
from perflab.cli.support.measuring import Saved
from perflab.profile.model import Profile
from perflab.results.store import Store


def test_a_profile_the_database_refuses_is_kept_in_a_file_and_the_run_stays(tmp_path, monkeypatch):
    db = tmp_path / "perflab.db"
    with Store.open(db) as store:
        run_id = store.save(synthetic_result(commit="a" * 40))
    monkeypatch.chdir(tmp_path)
    profile = Profile([Counter({("f (<project>/bench.py:1)",): 5})], {"case": "SMALL", "contender": "base"})
    err = Console(file=io.StringIO(), width=300)
    code = store_profile(profile, "SMALL", "base", Saved(run_id=run_id + 1, path=db), err)
    assert code == 2
    message = err.file.getvalue()
    assert f"no stored run with id {run_id + 1}" in message and len(message.strip().splitlines()) == 1
    [kept] = tmp_path.glob("perflab-unsaved-run*.profile.json")
    assert Profile.load(kept).to_json() == profile.to_json()
    with Store.open(db) as store:
        assert [run.id for run in store.runs("bench")] == [run_id]
