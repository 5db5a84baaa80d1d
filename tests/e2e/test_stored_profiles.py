"""Profiles kept with stored runs: those `perflab compare --profile` takes, and those that travel
through `perflab export` / `perflab import`."""

from __future__ import annotations

import json

from support.cli import QUICK, run_perflab
from support.web_store import build_store, profile_of

from perflab.results.store import Store

BENCH = """
import perflab

bench = perflab.Benchmark("pair", compare="exact")


@bench.case
def SMALL():
    return list(range(50))


def pad(n):
    for _ in range(n):
        pass


@bench.contender(reference=True)
def base(items):
    pad(200)
    return sum(items)


@bench.contender
def slow(items):
    pad(600)
    return sum(items)
"""


def test_compare_with_profile_stores_each_sides_profile_with_its_run(tmp_path):
    bench = tmp_path / "bench.py"
    bench.write_text(BENCH)
    db = tmp_path / "perflab.db"
    result = run_perflab(
        "compare", bench, "--profile", "--samples", "200", "--no-fuzz", "--db", db, *QUICK, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert "2 profiles stored" in result.stderr
    with Store.open(db) as store:
        [run] = store.runs("pair")
        assert store.profiles_of_run(run.id) == [("SMALL", "base"), ("SMALL", "slow")]
        assert store.profile(run.id, "SMALL", "slow").samples > 0


def test_profiles_travel_through_export_and_import(tmp_path):
    source = tmp_path / "source.db"
    ids = build_store(source)
    out = tmp_path / "out"
    exported = run_perflab("export", out, "--db", source, "--run", str(ids["after"]), "--run", str(ids["first"]))
    assert exported.returncode == 0, exported.stderr
    [sidecar] = list(out.glob("*.profiles.json"))
    assert json.loads(sidecar.read_text())["schema"] == "perflab.stored-profiles/1"
    target = tmp_path / "target.db"
    imported = run_perflab("import", *sorted(out.glob("parse-*[0-9].json")), "--db", target)
    assert imported.returncode == 0, imported.stderr
    assert "with 1 profiles" in imported.stderr
    with Store.open(target) as store:
        runs = store.runs("parse")
        assert len(runs) == 2
        [with_profile] = [r.id for r in runs if store.profiles_of_run(r.id)]
        assert store.profile(with_profile, "SMALL", "base").to_json() == profile_of(slow=True).to_json()
