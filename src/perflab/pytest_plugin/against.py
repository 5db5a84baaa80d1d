"""``--perflab-against REF|FILE``: fail the session on a supported regression beyond a threshold.

The baseline is earlier measurements of the same tests, not a re-run: either a file written by
``--perflab-json`` (e.g. an artifact of the main branch's CI job), or a git ref whose commit has
runs in the perflab store (the newest run of each test file at that commit, on this machine and
interpreter). The comparison is perflab.analysis.gate's unpaired one (Yuen-Welch on the log medians of the
value blocks) with Benjamini-Hochberg correction across every benchmark of the session: a test
fails the gate only when the data support a slowdown larger than the threshold.

(``perflab check --against REV`` instead measures both revisions now, interleaved; for a pytest
suite that would mean running the suite twice in two worktrees, which this option does not do.)
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from perflab.analysis import gate
from perflab.credentials import mask_credentials
from perflab.git import resolve_ref
from perflab.pytest_plugin import stale_build
from perflab.pytest_plugin.report import load_runs
from perflab.results.fingerprints import machine_fingerprint, python_fingerprint
from perflab.results.model import RunResult
from perflab.results.store import Store, StoreError


class BaselineError(Exception):
    """The baseline cannot be found or read; one line naming it and what to do."""


def baseline_runs(against: str, current: list[RunResult], store_path: Path | str) -> list[RunResult]:
    """The runs ``against`` names: a results file, else a git ref looked up in the store."""
    path = Path(against)
    if path.is_file():
        try:
            return load_runs(path)
        except (ValueError, KeyError, TypeError) as error:
            raise BaselineError(
                f"--perflab-against {against}: not a perflab results file ({error}); write one with --perflab-json"
            ) from None
    if not current:
        return []
    commit = resolve_ref(current[0].file, against)
    if commit is None:
        raise BaselineError(f"--perflab-against {against}: neither a file nor a git revision of this repository")
    machine = machine_fingerprint(current[0].metadata.get("machine") or {})
    python = python_fingerprint(current[0].metadata.get("python") or {})
    found, stale = [], 0
    try:
        with Store.open(store_path, create=False) as store:
            for run in current:
                matching = [
                    stored
                    for stored in store.runs(run.benchmark)
                    if stored.git_commit == commit and stored.machine_id == machine and stored.python_id == python
                ]
                # A run that measured a stale build (stale_build.py) measured another tree than its commit's.
                newest = (store.result(summary.id) for summary in reversed(matching))
                fresh = next((result for result in newest if stale_build.MARK not in result.metadata), None)
                if fresh is not None:
                    found.append(fresh)
                elif matching:
                    stale += 1
    except StoreError as error:
        raise BaselineError(f"--perflab-against {against}: {error}") from None
    if not found:
        skipped = " (the runs there measured a stale build, which is no baseline)" if stale else ""
        raise BaselineError(
            f"--perflab-against {against}: no stored run of these tests at commit {commit[:12]} on "
            f"this machine and interpreter in {mask_credentials(str(store_path))}{skipped}; run the benchmarks there first "
            "(or pass a file written by --perflab-json)"
        )
    return found


def check(
    baseline: list[RunResult], current: list[RunResult], threshold: float, alpha: float = 0.05
) -> gate.CheckResult:
    """One gate decision over every (test, contender) measured on both sides, FDR across all of them."""
    if not current:
        return gate.CheckResult(threshold, alpha)
    return gate.check(_merged(baseline, current[0]), _merged(current, current[0]), threshold, alpha)


def _merged(runs: list[RunResult], template: RunResult) -> RunResult:
    """The runs of several test files as one, each case named ``benchmark::case``."""
    cells = [replace(cell, case=f"{run.benchmark}::{cell.case}") for run in runs for cell in run.cells]
    return replace(
        template, cells=cells, metadata=runs[0].metadata if runs else template.metadata, comparisons=[], equivalence=[]
    )
