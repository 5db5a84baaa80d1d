"""The job queue: procrastinate's tables in the team's PostgreSQL store, one task (``perflab.measure``)
and the worker loop that runs it one job at a time.

A worker killed mid-job (SIGKILL, power loss) stops sending heartbeats; every other worker looks
for such stalled jobs every heartbeat and puts them back in the queue (procrastinate's
``get_stalled_jobs`` + ``retry_job``), so another worker measures them. The job's result row in
the store (``Store.save_job``) makes sure it is stored once however often it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from perflab.credentials import mask_credentials
from perflab.queue.execute import JobCancelled, JobFailed, Worker, execute
from perflab.queue.job_spec import QUEUE_PREFIX, TASK, JobSpec, queue_of
from perflab.results.store import Store, StoreError

# procrastinate's schema is applied once per database, under this advisory lock ("PFLQ").
SCHEMA_LOCK = 0x50464C51
ENDED = ("succeeded", "failed", "cancelled", "aborted")
log = logging.getLogger("perflab.worker")


class QueueError(Exception):
    """The queue cannot be used; one line saying what to do."""


def _app(url: str) -> Any:
    import procrastinate

    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))


@contextlib.contextmanager
def _opened(url: str) -> Iterator[Any]:
    """The queue at ``url`` (prepared), open for synchronous use; its errors as one-line QueueErrors."""
    import procrastinate.exceptions

    prepare(url)
    app = _app(url)
    try:
        with app.open():
            yield app
    except procrastinate.exceptions.ProcrastinateException as error:
        cause = error.__cause__ or error
        raise QueueError(
            f"{mask_credentials(url)}: the job queue failed ({str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__})"
        ) from None


def prepare(url: str) -> None:
    """The perflab store and procrastinate's tables in the database at ``url`` (created once)."""
    import psycopg

    if not url.startswith(("postgresql://", "postgres://")):
        raise QueueError(f"--db {url}: jobs need a PostgreSQL store (postgresql://user@host/dbname)")
    Store.open(url).close()
    try:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("SELECT pg_advisory_lock(%s)", [SCHEMA_LOCK])
            missing = connection.execute("SELECT to_regclass('procrastinate_jobs') IS NULL").fetchone()
            if missing and missing[0]:
                app = _app(url)
                with app.open():
                    app.schema_manager.apply_schema()
    except psycopg.Error as error:
        raise QueueError(f"{mask_credentials(url)}: cannot prepare the job queue ({error})") from None


def submit(url: str, specs: list[JobSpec], label: str) -> list[int]:
    """Queue one job per spec for the workers of ``label``; returns the job ids."""
    with _opened(url) as app:
        deferrer = app.configure_task(TASK, queue=queue_of(label))
        return [deferrer.defer(spec=spec.to_json()) for spec in specs]


@dataclass(frozen=True)
class JobRow:
    id: int
    label: str
    status: str  # todo, doing, succeeded, failed, cancelled, aborted
    attempts: int
    spec: JobSpec
    runs: list[int]
    host: str  # where its result was measured
    reason: str  # why its latest attempt failed


def jobs(url: str) -> list[JobRow]:
    """Every perflab job in the queue, oldest first, with its result's runs or why it failed."""
    with _opened(url) as app:
        queued = [job for job in app.job_manager.list_jobs(task=TASK) if job.queue.startswith(QUEUE_PREFIX)]
    with Store.open(url) as store:
        results, failures = store.job_results(), store.job_failures()
    return [
        JobRow(
            job.id,
            job.queue.removeprefix(QUEUE_PREFIX),
            _status_name(job.status),
            job.attempts,
            JobSpec.from_json(job.task_kwargs["spec"]),
            results.get(job.id, ("", []))[1],
            results.get(job.id, ("", []))[0],
            failures.get(job.id, ""),
        )
        for job in sorted(queued, key=lambda job: job.id)
    ]


def cancel(url: str, job: int) -> bool:
    """Cancel a queued job, or ask the worker running it to stop; False if it had ended already."""
    with _opened(url) as app:
        return app.job_manager.cancel_job_by_id(job, abort=True) or _status(app, job) == "doing"


def retry(url: str, job: int) -> None:
    """Queue a failed job again (procrastinate retries failed jobs only; submit a cancelled one again)."""
    with _opened(url) as app:
        status = _status(app, job)
        if status != "failed":
            raise QueueError(f"job {job}: is {status or 'not in the queue'}; only a failed job is retried")
        app.job_manager.retry_job_by_id(job, datetime.datetime.now(datetime.timezone.utc))


def _status(app: Any, job: int) -> str | None:
    found = app.job_manager.list_jobs(id=job)
    return _status_name(found[0].status) if found else None


def _status_name(status: Any) -> str:
    return str(getattr(status, "value", status))


def run_worker(url: str, label: str, worker: Worker, heartbeat: float, name: str) -> None:
    """Take the jobs of ``label`` one at a time until stopped (SIGINT or SIGTERM: the running job
    is finished first). Jobs of workers silent for 3 heartbeats are put back in the queue."""
    prepare(url)
    app = _app(url)

    import procrastinate.exceptions

    @app.task(name=TASK, pass_context=True)
    def measure(context: Any, spec: dict) -> list[int]:
        job = context.job
        log.info("job %s: %s", job.id, JobSpec.from_json(spec).title)
        try:
            runs = execute(job.id, JobSpec.from_json(spec), worker, context.should_abort)
        except JobCancelled:
            log.warning("job %s: cancelled while it was measured", job.id)
            raise procrastinate.exceptions.JobAborted() from None  # the job's status becomes "aborted"
        except (JobFailed, StoreError) as error:
            log.error("job %s failed: %s", job.id, error)
            try:
                with Store.open(worker.db) as store:
                    store.record_job_failure(job.id, job.attempts + 1, worker.host, str(error))
            except (
                StoreError
            ) as unrecorded:  # the store is gone: the log keeps the reason, and the job's own error stands
                log.error("job %s: its failure is not recorded: %s", job.id, unrecorded)
            raise
        log.info("job %s stored as run(s) %s", job.id, ", ".join(map(str, runs)))
        return runs

    async def reclaim_stalled() -> None:
        while True:
            await asyncio.sleep(heartbeat)
            for job in await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=3 * heartbeat):
                try:
                    await app.job_manager.retry_job(job)
                    log.warning("job %s: its worker stopped sending heartbeats; queued again", job.id)
                except Exception as error:  # another worker put it back first
                    log.debug("job %s not requeued: %s", job.id, error)

    async def main() -> None:
        async with app.open_async():
            reclaimer = asyncio.create_task(reclaim_stalled())
            try:
                await app.run_worker_async(
                    queues=[queue_of(label)],
                    concurrency=1,  # never two benchmarks at once on one machine
                    name=name,
                    update_heartbeat_interval=heartbeat,
                    stalled_worker_timeout=3 * heartbeat,
                    fetch_job_polling_interval=heartbeat,
                    abort_job_polling_interval=heartbeat,
                    listen_notify=True,
                )
            finally:
                reclaimer.cancel()

    asyncio.run(main())
