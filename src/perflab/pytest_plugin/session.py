"""One pytest session's benchmarks: fixtures handed out, results kept, and the end of the session
(--benchmark-json, --perflab-json, the results store, the --perflab-against gate, the summary)."""

from __future__ import annotations

import functools
import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from perflab.credentials import mask_credentials
from perflab.pytest_plugin.environment import REVISION_PIPE, option, warn, xdist_worker

if TYPE_CHECKING:  # numpy and scipy come in with the first benchmark, not with every pytest run
    from perflab.pytest_plugin.benchmark_api import BenchmarkFixture, Record
    from perflab.pytest_plugin.revisions import Channel, Revisions

# @pytest.mark.benchmark keywords: pytest-benchmark's, and perflab's own (precision, value_time).
# Those pytest-benchmark tunes its own calibration with have no meaning here and are accepted as
# given: perflab calibrates every value to --perflab-value-time.
ACCEPTED_UNUSED = {"min_time", "warmup_iterations", "calibration_precision", "cprofile_loops", "cprofile_dump"}
KEYWORDS = {
    "group",
    "max_time",
    "min_rounds",
    "timer",
    "disable_gc",
    "warmup",
    "cprofile",
    "precision",
    "value_time",
} | ACCEPTED_UNUSED


class BenchmarkSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: list[Record] = []
        self.lines: list[str] = []
        self.failed_gate = False
        self.skip = bool(option(config, "benchmark_skip")) and not option(config, "benchmark_only")
        self.only = bool(option(config, "benchmark_only"))
        self.disabled = bool(option(config, "benchmark_disable")) and not option(config, "benchmark_enable")
        if self.only and self.disabled:
            raise pytest.UsageError("--benchmark-only and --benchmark-disable contradict each other")
        # --perflab-rev: the session's revisions, checked out (None without it); in the process
        # that runs a test on one of them, its pipe to the session that times it.
        self.revisions: Revisions | None = None
        self.channel: Channel | None = None
        if option(config, "perflab_rev"):
            from perflab.pytest_plugin.revisions import Revisions

            self.revisions = Revisions(config, option(config, "perflab_rev"))
        elif os.environ.get(REVISION_PIPE):
            from perflab.pytest_plugin.revisions import Channel

            self.channel = Channel.from_environment()

    def fixture_for(self, node: Any, keywords: dict[str, Any]) -> BenchmarkFixture:
        from perflab.pytest_plugin.benchmark_api import BenchmarkFixture
        from perflab.pytest_plugin.sampling import SamplingSettings

        unknown = sorted(set(keywords) - KEYWORDS)
        if unknown:
            raise TypeError(
                f"@pytest.mark.benchmark: unknown keyword {unknown[0]!r} (accepted: {', '.join(sorted(KEYWORDS))})"
            )
        disabled = self.disabled
        if xdist_worker(self.config) and not disabled:
            warn(
                "perflab: benchmark not timed: pytest-xdist runs tests in parallel workers, which share the "
                "CPUs, so times would be meaningless; the function ran once, untimed. Run the benchmarks "
                "with -p no:xdist or -n 0"
            )
            disabled = True
        try:
            settings = SamplingSettings(
                max_time=float(keywords.get("max_time", option(self.config, "benchmark_max_time"))),
                min_rounds=keywords.get("min_rounds", option(self.config, "benchmark_min_rounds")),
                precision=keywords.get("precision", option(self.config, "perflab_precision")),
                value_time=keywords.get("value_time", option(self.config, "perflab_value_time")),
                warmups=2 if keywords.get("warmup", True) else 0,
                timer=_timer(keywords.get("timer", option(self.config, "benchmark_timer", None))),
                disable_gc=bool(keywords.get("disable_gc", option(self.config, "benchmark_disable_gc"))),
            )
        except ValueError as error:
            raise ValueError(f"@pytest.mark.benchmark or --benchmark-* option: {error}") from None
        from perflab.measure.settings import Settings  # the verdict rule of `perflab run`, one source for both

        defaults = Settings()
        fixture: Callable[..., BenchmarkFixture] = BenchmarkFixture
        if self.channel is not None:
            from perflab.pytest_plugin.revisions import ServingFixture

            fixture = functools.partial(ServingFixture, self.channel)
        return fixture(
            node,
            settings,
            self.records.append,
            disabled=disabled,
            group=keywords.get("group"),
            cprofile=bool(keywords.get("cprofile")),
            alpha=defaults.alpha,
            min_effect=defaults.min_effect,
            memory=option(self.config, "perflab_metric") == "memory",
        )

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not (self.skip or self.only):
            return
        for item in items:
            benchmarked = "benchmark" in getattr(item, "fixturenames", ())
            if self.skip and benchmarked:
                item.add_marker(pytest.mark.skip(reason="benchmarks are skipped (--benchmark-skip was used)"))
            elif self.only and not benchmarked:
                item.add_marker(pytest.mark.skip(reason="not a benchmark (--benchmark-only was used)"))

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        """--perflab-rev: a benchmarked test runs on each revision (revisions.py), not here."""
        if self.revisions is None:
            return None
        from perflab.pytest_plugin.benchmark_api import BenchmarkFixture

        fixture = pyfuncitem.funcargs.get("benchmark")
        if not isinstance(fixture, BenchmarkFixture) or fixture.disabled:
            return None
        self.revisions.run(pyfuncitem, fixture)
        return True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """In a revision's process: a skipped test's reason, for the session to skip it too."""
        if self.channel is not None and report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
            self.channel.skipped(str(reason))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        measured = [record for record in self.records if any(m.values for m in record.contenders)]
        against = option(self.config, "perflab_against")
        if not measured:
            if against and not xdist_worker(self.config):
                self.lines.append(f"--perflab-against {against}: no benchmark was measured, nothing to check")
            return
        from perflab.measure import metadata
        from perflab.pytest_plugin import against as gate
        from perflab.pytest_plugin import report, stale_build

        rootdir = Path(self.config.rootpath)
        collected = metadata.collect(measured[0].test_file)
        stale = stale_build.find(measured[0].test_file)
        if stale:  # kept with the runs: a gate never takes them as its commit's baseline
            collected[stale_build.MARK] = stale
        runs = report.run_results(measured, rootdir, collected)
        if self.revisions is not None:
            runs = [self.revisions.sided(run) for run in runs]
            self.lines.append(self.revisions.header())
        self.lines += report.summary_lines(measured) + report.group_tables(measured)
        self.lines += report.warning_lines(runs) + [f"({report.IN_PROCESS_NOTE})"]
        if stale:
            self.lines.append(f"note: a stale build was measured: {stale} (rebuild, then run again)")
        store_path = self._store_path(measured[0].test_file)
        if against and stale:
            self._refuse(
                session,
                f"--perflab-against {against}: {stale}, so this session measured another tree's build; "
                f"rebuild the project and run again (or measure both revisions built: "
                f"`perflab check bench.py --against {against} --build`)",
            )
        elif against:  # before anything is written: the baseline is read as it was
            self._gate(session, against, runs, store_path, gate)
        json_path = option(self.config, "benchmark_json")
        if json_path:
            Path(json_path).write_text(_dumps(report.pytest_benchmark_json(measured, collected)))
            self.lines.append(f"pytest-benchmark JSON written to {json_path}")
        if option(self.config, "perflab_json"):
            report.save_session(runs, option(self.config, "perflab_json"))
            self.lines.append(f"perflab results written to {option(self.config, 'perflab_json')}")
        if not option(self.config, "perflab_no_store"):  # --perflab-rev's: one run per revision, at its commit
            self._store([side for run in runs for side in run.per_side(run.file)], store_path)

    def _store_path(self, test_file: str) -> Path | str:
        from perflab.results.store import default_path, location

        given = option(self.config, "perflab_db")
        return location(given) if given else default_path(test_file)

    def _gate(self, session: pytest.Session, against: str, runs: list, store_path: Path | str, gate) -> None:
        from perflab.units import format_ratio, format_time

        try:
            baseline = gate.baseline_runs(against, runs, store_path)
        except gate.BaselineError as error:
            self._refuse(session, str(error))
            return
        threshold = option(self.config, "perflab_threshold")
        checked = gate.check(baseline, runs, threshold)
        self.lines.append(f"perflab gate against {against} (threshold {threshold:.1%}, in-process values):")
        if any(run.metrics for run in runs):  # --perflab-metric memory measured, but the gate does not read it
            self.lines.append("  time only: memory per call is not gated (`perflab check --metric memory` gates it)")
        for cell in checked.cells:
            ratio = cell.comparison.ratio
            estimators = checked.estimators(cell)
            self.lines.append(
                f"  {cell.case} [{cell.contender}]: medians {format_time(cell.baseline)} -> "
                f"{format_time(cell.current)}, {format_ratio(ratio.value, ratio.low, ratio.high)}: "
                f"{cell.verdict}" + (f" ({estimators})" if estimators else "")
            )
        self.lines += [f"  not in both: {name}" for name in checked.not_compared]
        self.lines += [f"  note: {note}" for note in checked.notes]
        if checked.regressions:
            self.failed_gate = True
            self.lines.append(
                f"perflab: {len(checked.regressions)} regression(s) beyond {threshold:.1%}: the session fails"
            )
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _refuse(self, session: pytest.Session, error: str) -> None:
        """The gate cannot decide: one line, and the session ends as a usage error."""
        self.lines.append(f"perflab: error: {error}")
        self.failed_gate = True
        session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def _store(self, runs: list, path: Path | str) -> None:
        from perflab.results.store import Store, StoreError

        try:
            with Store.open(path) as store:
                ids = [store.save(run, source="pytest") for run in runs]
        except StoreError as error:
            self.lines.append(f"perflab: error: {error} (the results are not stored; --perflab-json keeps them)")
            return
        self.lines.append(
            f"stored as run{'s' * (len(ids) > 1)} {', '.join(map(str, ids))} in {mask_credentials(str(path))}"
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.lines:
            return
        terminalreporter.section("perflab benchmarks", red=self.failed_gate, bold=True)
        for line in self.lines:
            terminalreporter.write_line(line)


def _timer(given: Any) -> Callable[[], float]:
    """The timer: a callable, or pytest-benchmark's dotted name ("time.perf_counter")."""
    if given is None:
        return time.perf_counter
    if callable(given):
        return given
    module, _, name = str(given).rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        raise ValueError(f"timer {given!r}: not an importable function (e.g. time.perf_counter)") from None


def _dumps(data: Any) -> str:
    import json

    return json.dumps(data, indent=4, ensure_ascii=True, default=str) + "\n"
