"""``perflab import`` of whole stores: each laptop's or CI job's SQLite file merged into one team
store (SQLite or PostgreSQL), each run once, with its profiles and change marks."""

from __future__ import annotations

from collections import Counter

import pytest
from support.cli import run_perflab
from support.store_results import synthetic_result

from perflab.profile.model import Profile
from perflab.results.store import ChangeMark, Store


@pytest.fixture(params=["sqlite", "postgresql"])
def team_store(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "team.db")
    return request.getfixturevalue("postgres_url")


def test_merging_stores_twice_stores_each_run_once(tmp_path, team_store):
    laptop, ci = tmp_path / "laptop.db", tmp_path / "ci.db"
    shared = synthetic_result(commit="a" * 40, seed=1)
    profile = Profile([Counter({("encode (bench.py:3)",): 5})], {"case": "SMALL", "contender": "base"})
    with Store.open(laptop) as store:
        shared_id = store.save(shared)
        store.save_profile(shared_id, "SMALL", "base", profile)
        store.save(synthetic_result(commit="b" * 40, seed=2))
        store.mark_change(ChangeMark("bench", "SMALL", "base", "m", "p", "bbbbbbbb", "acknowledged", "", 10.0))
    with Store.open(ci) as store:
        store.save(shared)  # the same run, copied into the CI store earlier
        store.save(synthetic_result(commit="c" * 40, seed=3))
    laptop_bytes = laptop.read_bytes()

    first = run_perflab("import", str(laptop), str(ci), "--db", team_store)
    assert first.returncode == 0, first.stderr
    assert "2 run(s) stored" in first.stderr and "1 run(s) stored" in first.stderr
    again = run_perflab("import", str(ci), str(laptop), "--db", team_store)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("0 run(s) stored") == 2

    assert laptop.read_bytes() == laptop_bytes  # a merged store is only read
    with Store.open(team_store) as store:
        runs = store.runs("bench")
        assert sorted(run.git_commit[0] for run in runs) == ["a", "b", "c"]
        [copy] = [run for run in runs if run.git_commit == "a" * 40]
        assert store.result(copy.id).to_json() == shared.to_json()
        assert store.profile(copy.id, "SMALL", "base").to_json() == profile.to_json()
        assert [mark.after for mark in store.change_marks()] == ["bbbbbbbb"]
