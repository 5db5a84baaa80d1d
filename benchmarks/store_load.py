"""Figure: the results store under load. 4 processes each save 200 runs into one database at
the same time; one of them is killed with SIGKILL while it is saving its 100th run.

Checked afterwards: ``PRAGMA integrity_check``, every run a writer reported as saved is there
with its content, the killed writer's half-saved run is either complete or absent (never partial),
no orphaned rows. Measured: save latency under contention (p50/p95/max), total throughput,
database size, and how long ``perflab history`` takes on the result.

The run saved is a real one (the first run of benchmarks/results/changepoint_measurements.json
when present, else a fresh ``perflab run`` of the json_dumps built-in at a short budget).

    python benchmarks/store_load.py
    python benchmarks/store_load.py --quick    # smoke run: 4 writers x 20 runs, one killed at its 10th

Writes benchmarks/results/store_load.json.
"""

from __future__ import annotations

import json
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, machine, run_perflab

WRITERS, RUNS_EACH, KILL_AT = 4, 200, 100

# A writer process: saves COUNT copies of the run (each one distinct), saying when each save starts
# and ends (also for team_scale.py).
WRITER = """
import sys, time
from perflab.results.model import RunResult
from perflab.results.store import Store

path, template, count, name = sys.argv[1:]
result = RunResult.load(template)
result.benchmark = name
with Store.open(path) as db:
    for sequence in range(int(count)):
        result.settings["sequence"] = sequence  # every run distinct (its stable id is its content's hash)
        print("saving", sequence, flush=True)
        started = time.perf_counter()
        run_id = db.save(result)
        print("saved", sequence, run_id, time.perf_counter() - started, flush=True)
"""


def _children_cpu() -> float:
    """CPU seconds used by finished child processes (wall time on a loaded machine says little)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def template(tmp: Path) -> Path:
    path = tmp / "template.json"
    measured = _cli.RESULTS / "changepoint_measurements.json"
    if measured.exists():
        path.write_text(json.dumps(json.loads(measured.read_text())["runs"][0]))
    else:
        run_perflab("json_dumps", path, "--max-time", "5", "--no-store")
    return path


def main() -> None:
    global RUNS_EACH, KILL_AT
    if _cli.parse(_cli.parser(__doc__)).quick:
        RUNS_EACH, KILL_AT = 20, 10
    before = conditions()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        run_file = template(tmp)
        (tmp / "writer.py").write_text(WRITER)
        db_path = tmp / "perflab.db"
        started = time.monotonic()
        writers = [
            subprocess.Popen(
                [sys.executable, str(tmp / "writer.py"), str(db_path), str(run_file), str(RUNS_EACH), f"writer{n}"],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(WRITERS)
        ]
        lines: dict[int, list[list[str]]] = {n: [] for n in range(WRITERS)}
        victim = writers[0]
        while True:  # read the victim until it starts saving run KILL_AT, then kill it mid-save
            line = victim.stdout.readline().split()
            lines[0].append(line)
            if line == ["saving", str(KILL_AT)]:
                victim.send_signal(signal.SIGKILL)
                break
        lines[0] += [line.split() for line in victim.stdout.read().splitlines()]
        victim.wait()
        for n, writer in enumerate(writers[1:], start=1):
            out, _ = writer.communicate()
            lines[n] = [line.split() for line in out.splitlines()]
            assert writer.returncode == 0, f"writer {n} failed"
        wall = time.monotonic() - started

        saved = {
            n: [(int(f[1]), int(f[2]), float(f[3])) for f in fields if f[0] == "saved"] for n, fields in lines.items()
        }
        db = sqlite3.connect(db_path)
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        stored = {
            (name, json.loads(result)["settings"]["sequence"]): run_id
            for run_id, name, result in db.execute("SELECT id, benchmark, result FROM runs")
        }
        missing = [
            (n, seq)
            for n, runs in saved.items()
            for seq, run_id, _ in runs
            if stored.get((f"writer{n}", seq)) != run_id
        ]
        victim_stored = sorted(seq for name, seq in stored if name == "writer0")
        orphans = db.execute("SELECT count(*) FROM measurements WHERE run_id NOT IN (SELECT id FROM runs)").fetchone()[
            0
        ]
        size = db_path.stat().st_size + sum(p.stat().st_size for p in tmp.glob("perflab.db-*"))
        db.close()
        latencies = np.array([latency for runs in saved.values() for _, _, latency in runs])
        history_started, cpu_before = time.monotonic(), _children_cpu()
        history = subprocess.run(
            [sys.executable, "-m", "perflab", "history", "writer1", "--db", str(db_path)],
            capture_output=True,
            text=True,
        )
        history_wall = time.monotonic() - history_started
        history_cpu = _children_cpu() - cpu_before
        run_bytes = run_file.stat().st_size

    total = sum(len(runs) for runs in saved.values())
    # The kill lands a little after "saving KILL_AT" is read: the run the victim was saving when it
    # died is the last one it announced.
    last_started = max(int(f[1]) for f in lines[0] if f and f[0] == "saving")
    killed_mid_save = last_started not in [seq for seq, _, _ in saved[0]]
    figure = {
        "what": __doc__.split("\n\n")[0],
        "machine": machine(),
        "conditions": {"start": before, "end": conditions()},
        "writers": WRITERS,
        "runs_each": RUNS_EACH,
        "killed_writer_at_run": KILL_AT,
        "run_json_bytes": run_bytes,
        "integrity_check": integrity,
        "runs_reported_saved": total,
        "runs_stored": len(stored),
        "reported_but_missing": missing,
        "orphaned_measurement_rows": orphans,
        "killed_writer": {
            "reported_saved": len(saved[0]),
            "stored": len(victim_stored),
            "last_run_started": last_started,
            "killed_during_its_save": killed_mid_save,
            "that_run_stored": last_started in victim_stored,
        },
        "save_latency_ms": {
            k: float(np.percentile(latencies, q) * 1000) for k, q in (("p50", 50), ("p95", 95), ("max", 100))
        },
        "throughput_runs_per_s": total / wall,
        "wall_s": wall,
        "database_bytes": size,
        "history_command_s": history_wall,
        "history_command_cpu_s": history_cpu,
        "history_exit_code": history.returncode,
    }
    ok = integrity == "ok" and not missing and orphans == 0 and len(victim_stored) in (len(saved[0]), len(saved[0]) + 1)
    figure["verdict"] = "no corruption, every finished run present" if ok else "FAILED"
    print(
        f"{WRITERS} writers x {RUNS_EACH} runs ({figure['run_json_bytes']} bytes each), writer 0 killed with "
        f"SIGKILL while saving run {KILL_AT}: integrity_check={integrity}; {total} runs reported saved, "
        f"{len(missing)} missing; killed writer: {len(saved[0])} reported, {len(victim_stored)} stored "
        f"(killed {'while saving' if killed_mid_save else 'after announcing'} run {last_started}, which is "
        f"{'complete' if last_started in victim_stored else 'absent'}); {orphans} orphaned rows"
    )
    print(
        f"save latency under contention: p50 {figure['save_latency_ms']['p50']:.1f} ms, p95 "
        f"{figure['save_latency_ms']['p95']:.1f} ms, max {figure['save_latency_ms']['max']:.1f} ms; "
        f"{figure['throughput_runs_per_s']:.0f} runs/s in total; database {size / 1e6:.1f} MB; "
        f"`perflab history` on it: {history_wall:.2f} s wall, {history_cpu:.2f} s CPU (exit {history.returncode})"
    )
    print(f"verdict: {figure['verdict']}")
    _cli.written(_cli.write_figure("store_load", figure))


if __name__ == "__main__":
    main()
