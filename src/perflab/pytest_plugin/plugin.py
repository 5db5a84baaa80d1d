"""perflab's pytest plugin (the ``pytest11`` entry point): options, takeover, session results.

It provides the ``benchmark`` fixture only when asked to (``--perflab``) or when pytest-benchmark
is not there to provide it, as pytest-codspeed does: installing perflab never changes how an
existing pytest-benchmark setup behaves. When it takes over from an installed pytest-benchmark,
that plugin's options stay (they are read with the same meaning) and its fixture, collection hooks
and session are switched off.

This module is imported by every pytest run where perflab is installed, so it imports nothing
heavy; numpy and scipy come in only when a benchmark is measured.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from perflab.option_types import percentage, seconds
from perflab.pytest_plugin import unsupported
from perflab.pytest_plugin.environment import REVISIONS_OPTION, xdist_worker

PYTEST_BENCHMARK_PLUGIN = "benchmark"  # pytest-benchmark's entry point name
PYTEST_BENCHMARK_SESSION = "pytest-benchmark"  # the session object it registers in pytest_configure
FIXTURES_PLUGIN = "perflab-benchmark-fixture"
MARKER = (
    "benchmark(group=None, min_rounds=5, max_time=1.0, timer=time.perf_counter, disable_gc=False, "
    "warmup=..., cprofile=False, precision=0.01): settings of the benchmark fixture in this test"
)


def _pytest_benchmark_available(pluginmanager: pytest.PytestPluginManager) -> bool:
    return importlib.util.find_spec("pytest_benchmark") is not None and not pluginmanager.is_blocked(
        PYTEST_BENCHMARK_PLUGIN
    )


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup("perflab", "perflab benchmarks (the benchmark fixture, timed by perflab)")
    group.addoption(
        "--perflab",
        action="store_true",
        default=False,
        help="time the benchmark fixture with perflab even when pytest-benchmark is installed",
    )
    group.addoption(
        "--perflab-against",
        metavar="REF|FILE",
        help="fail the session when a benchmark is slower than in FILE (written by --perflab-json) "
        "or than the stored runs at git revision REF, by more than --perflab-threshold",
    )
    group.addoption(
        REVISIONS_OPTION,
        dest="perflab_rev",
        action="append",
        default=[],
        metavar="REV",
        help="run the working tree's benchmark tests on the code of each git revision REV (give two or more; "
        "WORKTREE is the working tree), interleaved, with paired verdicts of each relative to the first",
    )
    group.addoption(
        "--perflab-threshold",
        metavar="PCT",
        type=percentage,
        default=0.05,
        help="slowdown that --perflab-against tolerates, in percent (default 5)",
    )
    group.addoption("--perflab-json", metavar="FILE", help="write the session's perflab results (every value)")
    group.addoption(
        "--perflab-db",
        metavar="FILE",
        help="the perflab results store (default $PERFLAB_DB, else .perflab/perflab.db at the git top level)",
    )
    group.addoption(
        "--perflab-no-store",
        action="store_true",
        default=False,
        help="do not save the benchmarks to the perflab results store",
    )
    group.addoption(
        "--perflab-precision",
        metavar="PCT",
        type=percentage,
        default=0.01,
        help="stop a benchmark early once its median's 95%% CI half-width is within PCT (default 1)",
    )
    group.addoption(
        "--perflab-value-time",
        metavar="SECONDS",
        type=seconds,
        default=0.005,
        help="calibrated duration of one value (default 0.005)",
    )
    group.addoption(
        "--perflab-metric",
        choices=("time", "memory"),
        default="time",
        help="what to measure of every benchmark: time (default), or memory per call besides (bytes allocated "
        "and at the peak by memray, retained by tracemalloc, as `perflab run --metric memory`; needs "
        "perflab[memory])",
    )
    if not _pytest_benchmark_available(pluginmanager):
        # pytest-benchmark's own options, so that command lines and CI scripts written for it work.
        bench = parser.getgroup("benchmark")
        bench.addoption(
            "--benchmark-json",
            metavar="PATH",
            type=Path,
            help="write pytest-benchmark's JSON report (all values) into PATH",
        )
        bench.addoption(
            "--benchmark-max-time",
            metavar="SECONDS",
            type=seconds,
            default=1.0,
            help="time budget of each benchmark (default 1.0)",
        )
        bench.addoption(
            "--benchmark-min-rounds",
            metavar="NUM",
            type=_rounds,
            default=5,
            help="values at least, whatever the time (default 5)",
        )
        bench.addoption(
            "--benchmark-timer", metavar="FUNC", default=None, help="timer as a dotted name (default time.perf_counter)"
        )
        bench.addoption(
            "--benchmark-disable-gc",
            action="store_true",
            default=False,
            help="disable the garbage collector while timing",
        )
        bench.addoption(
            "--benchmark-disable",
            action="store_true",
            default=False,
            help="call each benchmarked function once, untimed",
        )
        bench.addoption("--benchmark-enable", action="store_true", default=False, help="override --benchmark-disable")
        bench.addoption("--benchmark-skip", action="store_true", default=False, help="skip tests that benchmark")
        bench.addoption("--benchmark-only", action="store_true", default=False, help="only run tests that benchmark")
        unsupported.declare(bench)


def _rounds(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number of at least 1")
    return int(text)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    manager = config.pluginmanager
    has_pytest_benchmark = manager.has_plugin(PYTEST_BENCHMARK_PLUGIN)
    if has_pytest_benchmark and not config.getoption("perflab"):
        for name, given in (
            ("--perflab-against", config.getoption("perflab_against")),
            (REVISIONS_OPTION, config.getoption("perflab_rev")),
        ):
            if given:
                raise pytest.UsageError(
                    f"{name} needs perflab's benchmark fixture: add --perflab "
                    "(pytest-benchmark is installed and times the benchmarks otherwise)"
                )
        return
    unsupported.refuse_asked(config)
    if config.getoption("perflab_metric") == "memory":
        from perflab.metrics.count_jobs import MetricUnavailable
        from perflab.metrics.memory import require_memray

        try:
            require_memray()
        except MetricUnavailable as missing:
            raise pytest.UsageError(f"--perflab-metric memory: {missing}") from None
    against = config.getoption("perflab_against")
    for output in ("perflab_json", "benchmark_json"):
        written = config.getoption(output, None)
        if against and written and Path(written).resolve() == Path(against).resolve():
            raise pytest.UsageError(
                f"--{output.replace('_', '-')} {written} is the --perflab-against baseline; "
                "write the results to another file"
            )
    if against and _xdist_parallel(config):
        raise pytest.UsageError(
            "--perflab-against cannot gate tests run by pytest-xdist workers (they would be "
            "timed in parallel on shared CPUs); run the benchmarks with -p no:xdist or -n 0"
        )
    _check_revisions(config)
    if has_pytest_benchmark:
        manager.set_blocked(PYTEST_BENCHMARK_SESSION)
        manager.unregister(name=PYTEST_BENCHMARK_PLUGIN)
    config.addinivalue_line("markers", MARKER)
    from perflab.pytest_plugin import fixtures, memory_limits
    from perflab.pytest_plugin.session import BenchmarkSession

    memory_limits.register(config)  # pytest-memray's markers
    manager.register(fixtures, FIXTURES_PLUGIN)
    manager.register(BenchmarkSession(config), fixtures.SESSION_PLUGIN)


def _check_revisions(config: pytest.Config) -> None:
    """The usage errors of --perflab-rev, before any worktree is made (perflab.pytest_plugin.revisions)."""
    revisions = config.getoption("perflab_rev")
    if not revisions:
        return
    from perflab.measure.worktrees import revisions_error  # here: only a session given revisions needs it

    wrong = revisions_error(revisions, REVISIONS_OPTION)
    if wrong:
        raise pytest.UsageError(wrong)
    if config.getoption("perflab_against"):
        raise pytest.UsageError(
            f"{REVISIONS_OPTION} and --perflab-against cannot be combined: {REVISIONS_OPTION} measures the "
            "revisions now, paired; --perflab-against compares with stored runs; give one of them"
        )
    if config.getoption("perflab_metric") == "memory":
        raise pytest.UsageError(
            f"{REVISIONS_OPTION} compares times only: drop --perflab-metric memory "
            "(`perflab compare bench.py --rev A --rev B --metric memory` compares memory across revisions)"
        )
    if _xdist_parallel(config):
        raise pytest.UsageError(
            f"{REVISIONS_OPTION} cannot time tests run by pytest-xdist workers (they would be timed in parallel "
            "on shared CPUs); run the benchmarks with -p no:xdist or -n 0"
        )


def _xdist_parallel(config: pytest.Config) -> bool:
    return (
        bool(xdist_worker(config))
        or (config.getoption("numprocesses", None) or 0) != 0
        or getattr(config.option, "dist", "no") != "no"
    )
