"""Figures: the team setup (docs/team.md) on one machine. A throwaway PostgreSQL cluster
(tests/support/postgres_server.py) and, for comparison, a SQLite file.

1. Store writes: 8 writer processes save runs into one store at once; save latency p50/p95 (over
   every save of every writer) and whether every reported save is stored.
2. Queue overhead: one idle `perflab worker`; jobs submitted one after another; the time from
   enqueue to start of each (procrastinate's own event times, in the database).
3. Fault run: jobs over 3 workers, one killed with SIGKILL every few seconds and restarted; how
   many results are stored, and whether any job has two.
4. History query: one benchmark's history (store.runs + store.measurements) among N stored runs
   spread over 100 benchmarks, on PostgreSQL and on SQLite; median of 5 queries, with min and max.
   The first 1,000 runs are saved through Store.save (its time per save is printed); the rest are
   copies of their rows made in SQL, each with its own id and uid.

    python benchmarks/team_scale.py            # the figures: 8x100 saves, 10 + 50 jobs, 100,000 runs
    python benchmarks/team_scale.py --quick    # smoke run: 2x3 saves, 1 + 1 jobs (2 workers), 300 runs

Writes benchmarks/results/team_scale.json.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import _cli
from _common import conditions, format_load, machine
from store_load import WRITER, template  # the run saved: a real one
from support.postgres_server import new_database, throwaway_cluster

from perflab.results.model import RunResult
from perflab.results.store import Store

WRITERS, SAVES_EACH = 8, 100
QUEUE_JOBS = 10
FAULT_JOBS, FAULT_WORKERS, KILL_EVERY_S = 50, 3, 20.0
HISTORY_RUNS, BENCHMARKS = 100_000, 100
SAVED_RUNS = 1_000  # through Store.save; the rest are copies made in SQL
JOB_OPTIONS = "--precision 50 --max-time 60 --values 5 --value-time 0.002"

BENCH = """
import perflab

bench = perflab.Benchmark("bench")


@bench.case
def SMALL():
    return 10


@bench.contender
def builtin_sum(n):
    return sum(range(n))
"""


def concurrent_writes(where: str, run_file: Path, tmp: Path) -> dict:
    (tmp / "writer.py").write_text(WRITER)
    writers = [
        subprocess.Popen(
            [sys.executable, str(tmp / "writer.py"), where, str(run_file), str(SAVES_EACH), f"writer{n}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    latencies = []
    for writer in writers:
        out, _ = writer.communicate()
        assert writer.returncode == 0, "a writer failed"
        latencies += [float(line.split()[3]) for line in out.splitlines() if line.startswith("saved")]
    with Store.open(where) as store:
        stored = len(store.runs())
    return {
        "saves_reported": len(latencies),
        "runs_stored": stored,
        "save_ms": {k: float(np.percentile(latencies, q) * 1000) for k, q in (("p50", 50), ("p95", 95), ("max", 100))},
    }


def repository(tmp: Path) -> Path:
    root = tmp / "repo"
    root.mkdir()
    (root / "bench.py").write_text(textwrap.dedent(BENCH))
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=f", "-c", "user.email=f@f", "commit", "-qm", "f"]):
        subprocess.run(["git", "-C", str(root), *command], check=True)
    return root


def worker(url: str, name: str, tmp: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perflab",
            "worker",
            "--db",
            url,
            "--label",
            "figure",
            "--heartbeat",
            "2",
            "--name",
            name,
            "--cache",
            str(tmp / "cache"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / f"{name}.log", "a"),
    )


def submit(url: str, repo: Path, count: int) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "perflab",
            "submit",
            *["bench.py"] * count,
            "--label",
            "figure",
            "--db",
            url,
            "--options",
            JOB_OPTIONS,
        ],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def stored_jobs(url: str) -> dict:
    with Store.open(url) as store:
        return store.job_results()


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in processes:
        process.wait(60)


def queue_overhead(url: str, repo: Path, tmp: Path) -> dict:
    import psycopg

    idle = worker(url, "idle", tmp)
    try:
        time.sleep(5)  # started and listening
        for count in range(1, QUEUE_JOBS + 1):
            submit(url, repo, 1)
            while len(stored_jobs(url)) < count:
                time.sleep(0.2)
            if count < QUEUE_JOBS:
                time.sleep(3)  # idle again before the next job
    finally:
        stop([idle])
    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT extract(epoch FROM max(at) FILTER (WHERE type = 'started') - min(at) FILTER (WHERE type = 'deferred')) "
            "FROM procrastinate_events GROUP BY job_id ORDER BY job_id"
        ).fetchall()
    waits = [float(row[0]) for row in rows]
    return {
        "jobs": len(waits),
        "enqueue_to_start_s": {"median": statistics.median(waits), "min": min(waits), "max": max(waits)},
    }


def fault_run(url: str, repo: Path, tmp: Path) -> dict:
    submit(url, repo, FAULT_JOBS)
    workers = [worker(url, f"fault{n}", tmp) for n in range(FAULT_WORKERS)]
    kills, started = 0, time.monotonic()
    try:
        while len(stored_jobs(url)) < FAULT_JOBS and time.monotonic() - started < 60 * FAULT_JOBS:
            time.sleep(KILL_EVERY_S)
            victim = kills % FAULT_WORKERS
            os.kill(workers[victim].pid, signal.SIGKILL)
            workers[victim].wait()
            workers[victim] = worker(url, f"fault{victim}", tmp)
            kills += 1
    finally:
        stop(workers)
    with Store.open(url) as store:
        per_job = [len(runs) for _, runs in store.job_results().values()]
        runs = len(store.runs())
    return {
        "jobs": FAULT_JOBS,
        "kills": kills,
        "results": len(per_job),
        "runs_stored": runs,
        "jobs_with_more_than_one_run": sum(1 for n in per_job if n != 1),
        "wall_s": time.monotonic() - started,
    }


def _copy_rows(store: Store, saved: int, copies: int) -> None:
    """``copies`` more copies of the first ``saved`` runs (ids 1..saved in a new store), with their
    measurements and metric rows, made in SQL: saving 100,000 runs one by one through the API takes
    ~16 min on PostgreSQL here, and the query figure needs the rows, not the wait. Each copy has its
    own id, uid and saved time, as distinct runs would."""
    db = store._db  # a benchmark's shortcut: the store has no bulk-load API, nor should it
    columns = (
        "benchmark, file, created, source, git_commit, git_branch, git_dirty, commit_time, machine_id, cpu_model, "
        "cpu_count, os, kernel, python_id, python_version, python_build, packages, result, git_subject, job_id, "
        "commit_generation"
    )
    db.begin(write=True)
    for copy in range(1, copies + 1):
        shift = copy * saved
        db.execute(
            f"INSERT INTO runs (id, uid, {columns}) SELECT id + ?, uid || ?, {columns.replace('created', 'created + ?')} "
            "FROM runs WHERE id <= ?",
            [shift, f"-copy{copy}", copy, saved],
        )
        db.execute(
            "INSERT INTO measurements SELECT run_id + ?, case_name, contender, median, low, high, processes, struck "
            "FROM measurements WHERE run_id <= ?",
            [shift, saved],
        )
        db.execute(
            "INSERT INTO metric_values SELECT run_id + ?, case_name, contender, metric, value, low, high, processes "
            "FROM metric_values WHERE run_id <= ?",
            [shift, saved],
        )
    db.commit()


def history_query(where: str, run_file: Path) -> dict:
    result = RunResult.load(run_file)
    reference = result.reference
    with Store.open(where) as store:
        filled = time.perf_counter()
        for index in range(SAVED_RUNS):
            result.benchmark = f"bench{index % BENCHMARKS}"
            result.settings["sequence"] = index
            store.save(result)
        fill_s = time.perf_counter() - filled
        _copy_rows(store, SAVED_RUNS, HISTORY_RUNS // SAVED_RUNS - 1)
        stored = store._db.execute("SELECT count(*) FROM runs").fetchone()[0]
        times = []
        for _ in range(5):
            started = time.perf_counter()
            store.runs("bench7")
            found = store.measurements("bench7", contender=reference)
            times.append(time.perf_counter() - started)
    return {
        "runs": stored,
        "history_points": len(found),
        "saved_through_the_api": SAVED_RUNS,
        "save_s": fill_s / SAVED_RUNS,
        "query_s": {"median": statistics.median(times), "min": min(times), "max": max(times)},
    }


def main() -> None:
    global WRITERS, SAVES_EACH, QUEUE_JOBS, FAULT_JOBS, FAULT_WORKERS, KILL_EVERY_S, HISTORY_RUNS, SAVED_RUNS
    if _cli.parse(_cli.parser(__doc__)).quick:  # two writers and two workers: still concurrent, each a process
        WRITERS, SAVES_EACH, QUEUE_JOBS, FAULT_JOBS, FAULT_WORKERS = 2, 3, 1, 1, 2
        KILL_EVERY_S, HISTORY_RUNS, SAVED_RUNS = 30.0, 300, 100
    before = conditions()
    figure: dict = {"what": __doc__.split("\n\n")[0], "small": _cli.is_smoke(), "machine": machine()}
    with tempfile.TemporaryDirectory() as name, throwaway_cluster() as server:
        tmp = Path(name)
        run_file = template(tmp)
        repo = repository(tmp)
        figure["writes"] = {
            "postgresql": concurrent_writes(new_database(server), run_file, tmp),
            "sqlite": concurrent_writes(str(tmp / "writes.db"), run_file, tmp),
        }
        figure["queue"] = queue_overhead(new_database(server), repo, tmp)
        figure["fault"] = fault_run(new_database(server), repo, tmp)
        figure["history"] = {
            "postgresql": history_query(new_database(server), run_file),
            "sqlite": history_query(str(tmp / "history.db"), run_file),
        }
    figure["conditions"] = {"start": before, "end": conditions()}
    for backend, writes in figure["writes"].items():
        print(
            f"writes, {backend}: {WRITERS} writers x {SAVES_EACH} saves: p50 {writes['save_ms']['p50']:.1f} ms, "
            f"p95 {writes['save_ms']['p95']:.1f} ms, max {writes['save_ms']['max']:.1f} ms per save; "
            f"{writes['runs_stored']} of {writes['saves_reported']} reported saves stored"
        )
    queue = figure["queue"]["enqueue_to_start_s"]
    print(
        f"queue: enqueue to start on an idle worker, {figure['queue']['jobs']} jobs: median {queue['median']:.3f} s "
        f"(min {queue['min']:.3f}, max {queue['max']:.3f})"
    )
    fault = figure["fault"]
    print(
        f"fault run: {fault['jobs']} jobs over {FAULT_WORKERS} workers, {fault['kills']} SIGKILLs (one every "
        f"{KILL_EVERY_S:g} s): {fault['results']} results, {fault['runs_stored']} runs stored, "
        f"{fault['jobs_with_more_than_one_run']} jobs with more than one run, {fault['wall_s']:.0f} s"
    )
    for backend, history in figure["history"].items():
        query = history["query_s"]
        print(
            f"history query, {backend}: {history['history_points']} points among {history['runs']} runs: median "
            f"{query['median'] * 1000:.1f} ms (min {query['min'] * 1000:.1f}, max {query['max'] * 1000:.1f}) over 5; "
            f"filled by {history['saved_through_the_api']} saves of {history['save_s'] * 1000:.1f} ms each and SQL copies"
        )
    print(f"load average: start {format_load(before)}, end {format_load(figure['conditions']['end'])}")
    _cli.written(_cli.write_figure("team_scale", figure))


if __name__ == "__main__":
    main()
