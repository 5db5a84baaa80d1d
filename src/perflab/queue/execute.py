"""One job on a worker: its code checked out, measured by a `perflab run` or `perflab compare`
subprocess (the worker's own perflab, so a job can never take the worker down), and its runs
stored with the job's result row, once."""

from __future__ import annotations

import contextlib
import ctypes
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from perflab.measure.worktrees import RevisionError
from perflab.queue.checkout import checked_out
from perflab.queue.job_spec import JobSpec, OptionRefused
from perflab.results.files import ResultsFileError, load_file, unsaved_file
from perflab.results.store import Location, Store, StoreError

ABORT_POLL_SECONDS = 1.0


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
    with tempfile.TemporaryDirectory(prefix="perflab-job-") as scratch, _benchmark(spec, worker.cache) as file:
        output = Path(scratch) / "result.json"
        command = [sys.executable, "-m", "perflab", *spec.arguments(str(file)), "--json", str(output), "--no-store"]
        with open(Path(scratch) / "log", "w+") as log:
            process = subprocess.Popen(
                command,
                cwd=file.parent if spec.repository else scratch,
                stdout=log,
                stderr=log,
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
            log.seek(0)
            said = [line.strip() for line in log.read().splitlines() if line.strip()]
        if not output.exists():
            raise JobFailed(f"perflab {spec.verb} exited with code {process.returncode}: {_last_error(said)}")
        try:
            result = load_file(output)
        except ResultsFileError as error:
            raise JobFailed(str(error)) from None
        try:
            with Store.open(worker.db) as store:  # inside the checkout: the commit's time is read from it
                return store.save_job(job, result.per_side(str(file)), worker.host)
        except StoreError as error:  # the database went away while measuring: keep what was measured
            raise JobFailed(f"{error}; {_kept(output, job)}") from None


def _kept(output: Path, job: int) -> str:
    """The measurement of a job that could not be stored, copied out of the job's scratch folder."""
    unsaved = unsaved_file()
    try:
        shutil.copyfile(output, unsaved)
    except OSError as error:
        return f"its measurement could not be kept ({unsaved}: {error.strerror or error})"
    return f"its measurement is kept in {unsaved} (`perflab import {unsaved}` once the store is back; job {job})"


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
