"""One job on a worker: its code checked out, measured by a `perflab run` or `perflab compare`
subprocess (the worker's own perflab, so a job can never take the worker down), and its runs
stored with the job's result row, once."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from perflab.measure.worktrees import RevisionError
from perflab.option_types import IGNORE_PROJECT_DEFAULTS
from perflab.queue.checkout import checked_out
from perflab.queue.job_spec import JobSpec, OptionRefused
from perflab.results.files import ResultsFileError, load_file, unsaved_file
from perflab.results.store import Location, Store, StoreError

ABORT_POLL_SECONDS = 1.0
log = logging.getLogger("perflab.worker")


class JobFailed(Exception):
    """The job could not be measured; one line saying why (kept for ``perflab jobs``)."""


class JobCancelled(Exception):
    """``perflab jobs --cancel`` stopped the job while it was measured."""


@dataclass(frozen=True)
class Worker:
    """Where a worker stores results, keeps clones, and what it is called."""

    db: Location
    cache: Path
    host: str


def execute(job: int, spec: JobSpec, worker: Worker, should_abort: Callable[[], bool]) -> list[int]:
    """Measure job ``job`` and store its runs; returns their ids. A job whose result is stored
    already (a worker killed between storing it and reporting it) is not measured again."""
    with Store.open(worker.db) as store:
        done = store.runs_of_job(job)
    if done is not None:
        return done
    try:
        spec.arguments(spec.benchmark)  # refused before anything is cloned
    except OptionRefused as error:
        raise JobFailed(str(error)) from None
    kept = worker.cache / "kept" / f"job-{job}.json"  # measured before, when the store had gone away
    with tempfile.TemporaryDirectory(prefix="perflab-job-") as scratch, _benchmark(spec, worker.cache) as file:
        if kept.exists():
            log.info("job %s: storing what it measured before, when the store had gone away (%s)", job, kept)
            output = kept
        else:
            output = Path(scratch) / "result.json"
            _measure(spec, file, output, Path(scratch), should_abort)
        try:
            result = load_file(output)
        except ResultsFileError as error:
            raise JobFailed(str(error)) from None
        try:
            with Store.open(worker.db) as store:  # inside the checkout: the commit's time is read from it
                stored = store.save_job(job, result.per_side(str(file)), worker.host)
        except StoreError as error:  # the database went away while measuring: keep what was measured
            raise JobFailed(f"{error}; {_kept(output, kept, job)}") from None
    kept.unlink(missing_ok=True)
    return stored


def _measure(spec: JobSpec, file: Path, output: Path, scratch: Path, should_abort: Callable[[], bool]) -> None:
    """The job's `perflab run` or `perflab compare` subprocess, writing its results to ``output``."""
    command = [sys.executable, "-m", "perflab", *spec.arguments(str(file)), "--json", str(output), "--no-store"]
    with open(scratch / "log", "w+") as said_file:
        process = subprocess.Popen(
            command,
            cwd=file.parent if spec.repository else scratch,
            stdout=said_file,
            stderr=said_file,
            env={
                **os.environ,
                IGNORE_PROJECT_DEFAULTS: "1",
            },  # the submitted repository's [tool.perflab] chooses nothing
            preexec_fn=_die_with_parent,
        )
        while True:
            try:
                process.wait(ABORT_POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                if should_abort():
                    process.terminate()
                    process.wait()
                    raise JobCancelled() from None
        said_file.seek(0)
        said = [line.strip() for line in said_file.read().splitlines() if line.strip()]
    if not output.exists():
        raise JobFailed(f"perflab {spec.verb} exited with code {process.returncode}: {_last_error(said)}")


def _kept(output: Path, kept: Path, job: int) -> str:
    """The measurement of a job that could not be stored, copied out of the job's scratch folder:
    for this worker, which stores it when the job runs again (a stalled job is queued again, a
    failed one by ``perflab jobs --retry``), and for ``perflab import``."""
    unsaved = unsaved_file()
    try:
        if output != kept:
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(output, kept)
        shutil.copyfile(output, unsaved)
    except OSError as error:
        return f"its measurement could not be kept ({unsaved}: {error.strerror or error})"
    return (
        f"its measurement is kept in {unsaved} (`perflab import {unsaved}` once the store is back, or this "
        f"worker stores it when job {job} runs again)"
    )


def _last_error(lines: list[str]) -> str:
    """perflab's last error message (it may span lines), on one line and at most 500 characters."""
    starts = [index for index, line in enumerate(lines) if "error:" in line]
    text = " ".join(lines[starts[-1] :] if starts else lines[-1:]) or "no output"
    return text if len(text) <= 500 else text[:499] + "…"


def _die_with_parent() -> None:
    """In the measuring process: be killed when the worker dies (even by SIGKILL), so that a
    restarted worker never measures while an orphan still loads the machine (Linux's prctl)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def _benchmark(spec: JobSpec, cache: Path) -> Iterator[Path]:
    """The benchmark file at the job's commit, or the built-in's name (as a path) for a built-in."""
    if spec.repository is None:
        yield Path(spec.benchmark)
        return
    relative = PurePosixPath(spec.benchmark)
    if relative.is_absolute() or ".." in relative.parts or spec.commit is None:
        raise JobFailed(f"{spec.benchmark}: a job's benchmark is a path inside its repository, with a commit")
    try:
        with checked_out(spec.repository, spec.commit, spec.benchmark, cache, spec.revisions) as file:
            yield file
    except RevisionError as error:
        raise JobFailed(str(error)) from None
