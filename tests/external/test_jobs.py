"""Benchmark jobs over real `perflab worker` processes on localhost, with a real PostgreSQL queue
and store: each job runs exactly once, and the job of a worker killed with SIGKILL finishes on
another worker with one result stored."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.cli import QUICK, run_perflab
from support.compiled_projects import c_extension_repository, uv_on_path
from support.git_repos import asv_project

from perflab.results.store import Store

HEARTBEAT = "1"  # a killed worker's job is taken back after 3 s of silence


@pytest.fixture
def repo(tmp_path):
    """A git repository with a tiny benchmark file committed (and one that is slow to load)."""
    root = tmp_path / "repo"
    root.mkdir()
    bench = """
        import perflab

        bench = perflab.Benchmark("bench")


        @bench.case
        def SMALL():
            return 10


        @bench.contender
        def builtin_sum(n):
            return sum(range(n))
    """
    (root / "bench.py").write_text(textwrap.dedent(bench))
    (root / "slow.py").write_text(
        "import time\n\ntime.sleep(1)  # every measuring process loads slowly\n" + textwrap.dedent(bench)
    )
    for command in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "bench"],
    ):
        subprocess.run(["git", "-C", str(root), *command], check=True)
    return root


def start_worker(url: str, name: str, cache: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perflab",
            "worker",
            "--db",
            url,
            "--label",
            "quiet",
            "--heartbeat",
            HEARTBEAT,
            "--worker-name",
            name,
            "--cache",
            str(cache),
        ],
        stdout=subprocess.DEVNULL,
        stderr=open(log, "w"),
    )


def wait_for_jobs(url: str, count: int, timeout: float) -> dict[int, tuple[str, list[int]]]:
    deadline = time.monotonic() + timeout
    while True:
        with Store.open(url) as store:
            results = store.job_results()
        if len(results) >= count or time.monotonic() > deadline:
            return results
        time.sleep(0.5)


def stop(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGINT)
    for worker in workers:
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()


def job_rows(url: str) -> list[list[str]]:
    """The cells of `perflab jobs`' table, row by row."""
    listing = run_perflab("jobs", "--db", url, env={**os.environ, "COLUMNS": "300"})
    assert listing.returncode == 0, listing.stderr
    rows: list[list[str]] = []
    for line in listing.stdout.splitlines():
        if line.startswith("│"):
            cells = [cell.strip() for cell in line.split("│")[1:-1]]
            if cells[0] or not rows:
                rows.append(cells)
            else:  # a long cell wrapped onto the next line
                rows[-1] = [" ".join(filter(None, pair)) for pair in zip(rows[-1], cells)]
    return rows


def started_jobs(logs: list[Path]) -> list[int]:
    """The job ids the workers' logs say they started ("job N: ...")."""
    started = []
    for log in logs:
        for line in log.read_text().splitlines():
            words = line.split(" INFO job ")
            if len(words) == 2 and words[1].split(":")[0].isdigit() and ": " in words[1]:
                started.append(int(words[1].split(":")[0]))
    return started


def test_six_jobs_over_three_workers_each_run_exactly_once(repo, postgres_url, tmp_path):
    """Two jobs per worker (each a QUICK run, ~2 CPU-s): every worker has a job to race for and
    one more to take after its first, which is what exactly-once is about."""
    jobs = 6
    logs = [tmp_path / f"worker{i}.log" for i in range(3)]
    workers = [start_worker(postgres_url, f"w{i}", tmp_path / "cache", logs[i]) for i in range(3)]
    options = " ".join(QUICK[:-2])  # the job's own options, passed to `perflab run` on the worker
    try:
        submitted = run_perflab(
            "submit", *["bench.py"] * jobs, "--label", "quiet", "--db", postgres_url, "--options", options,
            "--wait", "900", cwd=repo,
        )  # fmt: skip
    finally:
        stop(workers)
    assert submitted.returncode == 0, (submitted.stderr, [log.read_text()[-2000:] for log in logs])
    assert submitted.stderr.count("queued for workers labelled quiet") == jobs
    assert submitted.stderr.count(": succeeded: run(s) ") == jobs
    results = wait_for_jobs(postgres_url, jobs, timeout=0)
    assert len(results) == jobs
    started = started_jobs(logs)
    assert sorted(started) == sorted(results) and len(set(started)) == jobs  # each job started once
    assert sum(1 for log in logs if started_jobs([log])) >= 2  # spread over workers
    with Store.open(postgres_url) as store:
        runs = store.runs("bench")
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
        assert len(runs) == jobs and {run.git_commit for run in runs} == {head.stdout.strip()}
    rows = job_rows(postgres_url)
    assert sorted(int(row[0]) for row in rows) == sorted(results) and {row[2] for row in rows} == {"succeeded"}


def test_a_killed_workers_job_finishes_elsewhere_with_one_result(repo, postgres_url, tmp_path):
    options = " ".join(QUICK[:-2])
    submitted = run_perflab(
        "submit", "slow.py", "--label", "quiet", "--db", postgres_url, "--options", options, cwd=repo
    )
    assert submitted.returncode == 0, submitted.stderr
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    first = start_worker(postgres_url, "first", tmp_path / "cache", logs[0])
    second = None
    try:
        deadline = time.monotonic() + 60
        while not started_jobs([logs[0]]) and time.monotonic() < deadline:
            time.sleep(0.2)
        [job] = started_jobs([logs[0]])
        time.sleep(1)  # mid-job: its measuring processes are loading slow.py
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        second = start_worker(postgres_url, "second", tmp_path / "cache", logs[1])
        results = wait_for_jobs(postgres_url, 1, timeout=180)
    finally:
        stop([w for w in (first, second) if w is not None])
    assert list(results) == [job], logs[1].read_text()[-2000:]
    assert started_jobs([logs[1]]) == [job] and "queued again" in logs[1].read_text()
    with Store.open(postgres_url) as store:
        assert len(store.runs()) == 1 and store.runs_of_job(job) == results[job][1]
    [row] = job_rows(postgres_url)
    assert row[:4] == [str(job), "quiet", "succeeded", "2"] and "slow.py" in row[4] and "run(s) " in row[5]


def test_an_asv_suite_submitted_by_its_project_directory_runs_on_a_worker(postgres_url, tmp_path):
    project = asv_project(tmp_path / "asv")
    options = " ".join([*QUICK[:-2], "-b", "time_work"])
    worker = start_worker(postgres_url, "w", tmp_path / "cache", tmp_path / "worker.log")
    try:
        submitted = run_perflab(
            "submit", ".", "--label", "quiet", "--db", postgres_url, "--options", options, "--wait", "300", cwd=project
        )
    finally:
        stop([worker])
    assert submitted.returncode == 0, (submitted.stderr, (tmp_path / "worker.log").read_text()[-2000:])
    assert "asv.conf.json @ " in submitted.stderr and ": succeeded: run(s) " in submitted.stderr
    with Store.open(postgres_url) as store:
        [run] = store.runs()
        # Measured from the project's directory, as asv runs it: the suite imported mylib from there.
        assert [cell.case for cell in store.result(run.id).cells] == ["bench_work.TimeWork.time_work(100)"]


def test_bad_job_requests_are_one_line_errors(repo, postgres_url, tmp_path):
    wide = {**os.environ, "COLUMNS": "300"}
    (repo / "suite").mkdir()
    (repo / "suite" / "asv.conf.json").write_text('{"benchmark_dir": "nowhere"}')
    for args, message in [
        (["submit", "bench.py", "--db", str(tmp_path / "x.db")], "jobs need a PostgreSQL store"),
        (["submit", "bench.py", "--label", "a b", "--db", postgres_url], "--label 'a b'"),
        (["submit", "missing.py", "--db", postgres_url], "missing.py: no such benchmark file"),
        (["submit", "suite", "--db", postgres_url], "is not a directory"),  # an asv suite's missing benchmark_dir
        (["submit", "bench.py", "--rev", "nope", "--db", postgres_url], "--rev nope: no such revision"),
        (["submit", "bench.py", "--build", "--db", postgres_url], "--build, --build-command and --build-spread build"),
        (["submit", "bench.py", "--options", "'unclosed", "--db", postgres_url], "--options: No closing quotation"),
        (["submit", "bench.py", "--options", "--max-time nan", "--db", postgres_url], "--options: argument --max-time"),
        (["jobs", "--retry", "1", "--db", postgres_url], "job 1: is not in the queue"),
    ]:
        done = run_perflab(*args, cwd=repo, env=wide)
        assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1, (
            args,
            done.stderr,
        )


def test_a_hostile_job_queued_past_submits_checks_is_refused_by_the_real_worker(repo, postgres_url, tmp_path):
    """Jobs written into the queue directly (an old perflab, or anyone with the database): a
    repository that is a git option, and options naming an output the worker chooses. The worker
    fails each with the reason: no command runs, no file is written where the job says."""
    from perflab.queue.job_spec import JobSpec
    from perflab.queue.tasks import submit

    touched, written = tmp_path / "touched", tmp_path / "written.html"
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    hostile = [
        JobSpec("bench.py", repository=f"--upload-pack=touch {touched}", commit=commit.strip()),
        JobSpec("json_dumps", options=[*QUICK[:-2], "--html", str(written)]),
        JobSpec("json_dumps", options=[*QUICK[:-2], f"--htm={written}"]),  # as argparse would expand it
    ]
    jobs = submit(postgres_url, hostile, "quiet")
    log = tmp_path / "worker.log"
    worker = start_worker(postgres_url, "w", tmp_path / "cache", log)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            rows = {row[0]: row for row in job_rows(postgres_url)}
            if all(rows[str(job)][2] == "failed" for job in jobs):
                break
            time.sleep(0.5)
    finally:
        stop([worker])
    reasons = [rows[str(job)][5] for job in jobs]
    assert [rows[str(job)][2] for job in jobs] == ["failed"] * 3, (rows, log.read_text()[-2000:])
    assert "does not exist" in reasons[0]
    assert all("a worker chooses where a job's outputs go" in reason for reason in reasons[1:]), reasons
    assert not touched.exists() and not written.exists()
    with Store.open(postgres_url) as store:
        assert store.runs() == []


def test_jobs_are_cancelled_queued_or_running_and_a_failed_one_retried(repo, postgres_url, tmp_path):
    (repo / "broken.py").write_text("raise RuntimeError('no such thing')\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "b"], check=True
    )
    options = " ".join(QUICK[:-2])
    submitted = run_perflab(
        "submit", "bench.py", "broken.py", "slow.py", "--label", "quiet", "--db", postgres_url, "--options", options,
        cwd=repo,
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    cancelled = run_perflab("jobs", "--cancel", "1", "--db", postgres_url)
    assert cancelled.returncode == 0 and "job 1: cancelled" in cancelled.stderr
    log = tmp_path / "worker.log"
    worker = start_worker(postgres_url, "w", tmp_path / "cache", log)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and 3 not in started_jobs([log]):
            time.sleep(0.2)
        stopping = run_perflab("jobs", "--cancel", "3", "--db", postgres_url)  # slow.py, while it is measured
        assert stopping.returncode == 0 and "job 3: cancelled" in stopping.stderr
        while time.monotonic() < deadline and {row[0]: row[2] for row in job_rows(postgres_url)}["3"] == "doing":
            time.sleep(0.5)
    finally:
        stop([worker])
    rows = {row[0]: row for row in job_rows(postgres_url)}
    assert [rows[job][2] for job in "123"] == ["cancelled", "failed", "aborted"], rows
    assert "no such thing" in rows["2"][5] and "(on " in rows["2"][5]
    with Store.open(postgres_url) as store:
        assert store.runs() == []  # nothing of the stopped job was stored
    retried = run_perflab("jobs", "--retry", "2", "--db", postgres_url)
    assert retried.returncode == 0 and "job 2: queued again" in retried.stderr
    assert {row[0]: row[2] for row in job_rows(postgres_url)}["2"] == "todo"
    again = run_perflab("jobs", "--retry", "1", "--db", postgres_url)
    assert again.returncode == 2 and "only a failed job is retried" in again.stderr


@pytest.mark.timeout(1800)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler (gcc)")
def test_a_job_comparing_compiled_revisions_is_built_by_the_worker_once_per_revision(
    postgres_url, tmp_path, monkeypatch
):
    """One worker, one job: two uv builds of a tiny C extension in the worker's build cache (a few
    seconds each, more when the machine is loaded) and one QUICK comparison of the built sides."""
    repo = c_extension_repository(tmp_path / "repo")
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path / "worker-cache"))  # the worker's, inherited
    monkeypatch.setenv("PATH", uv_on_path())  # the worker's too: the build command is uv's
    worker = start_worker(postgres_url, "builder", tmp_path / "clones", tmp_path / "worker.log")
    command = "uv pip install --no-build-isolation ."
    try:
        submitted = run_perflab(
            "submit", "benchmarks/bench.py", "--rev", "HEAD~1", "--rev", "HEAD", "--build", "--build-command", command,
            "--label", "quiet", "--db", postgres_url, "--options", " ".join(QUICK[:-2]), "--wait", "1500", cwd=repo,
            timeout=1600,
        )  # fmt: skip
    finally:
        stop([worker])
    assert submitted.returncode == 0, (submitted.stderr, (tmp_path / "worker.log").read_text()[-2000:])
    assert ": succeeded: run(s) " in submitted.stderr
    [(_, run_ids)] = wait_for_jobs(postgres_url, 1, timeout=0).values()
    assert len(run_ids) == 2  # one stored run per revision
    with Store.open(postgres_url) as store:
        built = store.result(run_ids[0]).metadata["builds"]
    assert len(built) == 2 and {side["command"] for side in built.values()} == {command}
    assert not any(side["cached"] for side in built.values())
    assert all(side["environment"].startswith(str(tmp_path / "worker-cache")) for side in built.values())
    assert len(list((tmp_path / "worker-cache" / "builds").glob("*/perflab-build.json"))) == 2
