"""Several perflab processes writing one database at once, one of them killed mid-write."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys

from support.store_results import synthetic_result

WRITER = """
import sys
from perflab.results.model import RunResult
from perflab.results.store import Store

path, template, count, name = sys.argv[1:]
result = RunResult.load(template)
result.benchmark = name
with Store.open(path) as db:
    for sequence in range(int(count)):
        result.settings["sequence"] = sequence
        print(sequence, db.save(result), flush=True)   # printed only once committed
"""


def test_four_writers_one_killed_leave_a_valid_database_with_every_finished_run(tmp_path):
    template = tmp_path / "template.json"
    synthetic_result(processes=100).save(template)  # ~100 kB per run: writes take a while
    (tmp_path / "writer.py").write_text(WRITER)
    path, count = tmp_path / "perflab.db", 40
    writers = [
        subprocess.Popen(
            [sys.executable, str(tmp_path / "writer.py"), str(path), str(template), str(count), f"writer{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    victim = writers[0]
    finished = {0: []}
    while len(finished[0]) < 5:
        finished[0].append(victim.stdout.readline().split())
    victim.send_signal(signal.SIGKILL)
    finished[0] += [line.split() for line in victim.stdout.read().splitlines()]
    victim.wait()
    for n, writer in enumerate(writers[1:], start=1):
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
        finished[n] = [line.split() for line in out.splitlines()]
    assert victim.returncode == -signal.SIGKILL

    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {
        (name, json.loads(result)["settings"]["sequence"]): run_id
        for run_id, name, result in db.execute("SELECT id, benchmark, result FROM runs")
    }
    for n, lines in finished.items():
        for sequence, run_id in lines:
            assert stored[(f"writer{n}", int(sequence))] == int(run_id)
    for n in (1, 2, 3):
        assert len(finished[n]) == count
    # The victim may have committed one run it never got to print, never a partial one.
    victim_runs = [key for key in stored if key[0] == "writer0"]
    assert len(finished[0]) <= len(victim_runs) <= len(finished[0]) + 1
    orphans = db.execute("SELECT count(*) FROM measurements WHERE run_id NOT IN (SELECT id FROM runs)").fetchone()[0]
    assert orphans == 0


def test_six_processes_creating_one_store_at_once_all_succeed(tmp_path):
    """Six processes save a run each into a database none has created yet, four times over: each
    creates it, or waits for the one creating it. Processes of the library's Store.open (as `perflab
    import` opens it), ~0.1 CPU-s each against ~0.65 for the command line's, so the six also start
    closer together (a harder race)."""
    template = tmp_path / "template.json"
    synthetic_result().save(template)
    (tmp_path / "writer.py").write_text(WRITER)
    for attempt in range(4):
        path = tmp_path / f"new{attempt}.db"
        writers = [
            subprocess.Popen(
                [sys.executable, str(tmp_path / "writer.py"), str(path), str(template), "1", f"bench{n}"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(6)
        ]
        for writer in writers:
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert sorted(name for (name,) in db.execute("SELECT benchmark FROM runs")) == [f"bench{n}" for n in range(6)]
        db.close()
