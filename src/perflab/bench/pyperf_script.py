"""pyperf scripts, unchanged, as perflab benchmarks: a Runner-compatible object records what the
script asks to time, and perflab's runner, statistics, profiler and store do the timing.

A pyperf script is recognised by its source: it imports ``pyperf`` and declares no
``perflab.Benchmark`` (perflab.bench.loading.is_pyperf_script). It is run as ``__main__`` with ``pyperf.Runner``
replaced by ``Runner`` below, whose ``bench_func``, ``bench_time_func``, ``bench_async_func``,
``timeit`` and ``bench_command`` record the benchmark instead of spawning pyperf's workers. Each
recorded name becomes a case of one contender, ``script``; perflab's workers load the script the
same way, so the timed calls run in perflab's fresh, pinned, interleaved worker processes.

- ``bench_func(name, f, *args)``: perflab times ``f(*args)`` itself; its output is compared across
  revisions or interpreters when it is plain data (None, numbers, strings, bytes, and lists, tuples
  and dicts of them); other outputs are not compared, and the check says so.
- ``bench_time_func(name, time_func, *args)``: the script times itself: ``time_func(loops, *args)``
  returns the seconds that ``loops`` iterations took, and perflab uses that (the worker's
  ``measured_region`` hands the loop count over through ``times_itself``).
- ``inner_loops=N``: times are per inner iteration, as pyperf reports them (``Recorded.seconds_for``).
- Arguments: ``runner.argparser`` accepts pyperf's own options (parsed and ignored: perflab's
  stopping rule decides processes, values and loops) and the script's; the script's options are
  given in ``PERFLAB_PYPERF_ARGS`` (e.g. ``PERFLAB_PYPERF_ARGS="--cases NESTED" perflab run bm.py``).
- Metadata: ``runner.metadata['description']`` becomes the benchmark's description; the rest is
  not kept (the results model has no place for it yet).
- pyperf need not be installed where the workers run (another interpreter sees only perflab):
  when ``import pyperf`` fails, a stand-in module offers ``Runner``, ``perf_counter`` and
  ``python_has_jit``; when pyperf is installed, the real module is used with only ``Runner``
  replaced, for the time of loading the script.

Runs in worker processes: standard library only.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from perflab.bench.comparators import Comparator, Outcome, first_difference
from perflab.bench.neighbours import importable_neighbours
from perflab.bench.spec import Benchmark, BenchmarkFileError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

ARGS_VARIABLE = "PERFLAB_PYPERF_ARGS"
CONTENDER = "script"
PLAIN_DATA = (type(None), bool, int, float, complex, str, bytes)

# pyperf's own command-line options: accepted so that scripts parse as under pyperf, and ignored.
_PYPERF_FLAGS = (
    "--rigorous",
    "--fast",
    "--debug-single-value",
    "--quiet",
    "--append",
    "--worker",
    "--pipe",
    "--tracemalloc",
    "--track-memory",
    "--no-locale",
    "--copy-env",
    "--inherit-environ-all",
    "--table",
    "--min",
    "--stats",
    "--dump",
    "--metadata",
    "--hist",
)
_PYPERF_VALUED = (
    "-p",
    "--processes",
    "-n",
    "--values",
    "-l",
    "--loops",
    "-w",
    "--warmups",
    "--min-time",
    "--worker-task",
    "--calibrate-loops",
    "--recalibrate-loops",
    "--calibrate-warmups",
    "--recalibrate-warmups",
    "-o",
    "--output",
    "--python",
    "--compare-to",
    "--python-names",
    "--affinity",
    "--inherit-environ",
    "--timeout",
    "--profile",
    "--hook",
    "-d",
    "--duplicate",
)


@dataclass
class Recorded:
    """One benchmark the script asked for: how to time ``loops`` iterations, and how to run one."""

    name: str
    time_loops: Callable[[int], float]  # seconds for ``loops`` calls of the benchmark
    run_once: Callable[[], Any]  # one iteration, for its output
    inner_loops: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)
    script: types.ModuleType | None = None  # the script's module: ``__main__`` while it runs
    iterations_run: int = 0  # inner iterations the last ``seconds_for`` ran (whole calls)

    def __deepcopy__(self, memo: dict) -> Recorded:
        # A recipe, not data: the timed function is the script's own, and a deep copy would copy
        # the Runner its bound methods hold (so equivalence's input checks saw a "changed" input).
        return self

    def seconds_for(self, loops: int) -> float:
        """Seconds that ``loops`` *inner* iterations take, as the worker's measured_region returns them.

        pyperf's ``inner_loops=N`` says one call of the benchmark does N iterations, and reports
        time per iteration. Counting loops in inner iterations keeps that meaning and lets the
        worker's calibration size values as usual: ``loops / N`` calls are made (at least one),
        and their time is scaled to ``loops`` iterations."""
        if loops <= 0:
            return 0.0
        calls = max(1, round(loops / self.inner_loops))
        self.iterations_run = calls * self.inner_loops
        return self.time_loops(calls) * loops / (calls * self.inner_loops)


class Runner:
    """``pyperf.Runner``, as far as a script sees it: arguments, metadata, and the bench methods,
    which record instead of running."""

    recorded: list[Recorded] = []  # what every Runner of the script being loaded recorded

    def __init__(
        self,
        values: int | None = None,
        processes: int | None = None,
        loops: int = 0,
        min_time: float = 0.1,
        metadata: dict | None = None,
        show_name: bool = True,
        program_args: Any = None,
        add_cmdline_args: Callable | None = None,
        _argparser: Any = None,
        warmups: int = 1,
    ) -> None:
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.args: argparse.Namespace | None = None
        self.argparser = _argparser or argparse.ArgumentParser(
            prog=Path(sys.argv[0]).name, description="Benchmark (run by perflab)"
        )
        for flag in _PYPERF_FLAGS:
            self.argparser.add_argument(flag, action="store_true", help=argparse.SUPPRESS)
        for option in _PYPERF_VALUED:
            self.argparser.add_argument(
                option, action="append" if option == "--hook" else "store", help=argparse.SUPPRESS
            )
        self.argparser.add_argument("-v", "--verbose", action="store_true", help=argparse.SUPPRESS)

    def parse_args(self, args: list[str] | None = None) -> argparse.Namespace:
        if self.args is None or args is not None:
            self.args = self.argparser.parse_args(args)
        return self.args

    def bench_func(
        self,
        name: str,
        func: Callable[..., Any],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict | None = None,
    ) -> None:
        call = functools.partial(func, *args) if args else func

        def time_loops(loops: int) -> float:
            timer = time.perf_counter
            start = timer()
            for _ in range(loops):
                call()
            return timer() - start

        self._record(name, time_loops, call, inner_loops, metadata)

    def bench_time_func(
        self,
        name: str,
        time_func: Callable[..., float],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict | None = None,
    ) -> None:
        def time_loops(loops: int) -> float:
            return float(time_func(loops, *args)) if loops else 0.0

        def run_once() -> None:  # the script's function returns a time, not an output to compare
            time_func(1, *args)

        self._record(name, time_loops, run_once, inner_loops, metadata)

    def bench_async_func(
        self,
        name: str,
        func: Callable[..., Any],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict | None = None,
        loop_factory: Callable[[], Any] | None = None,
    ) -> None:
        import asyncio

        call = functools.partial(func, *args) if args else func

        def in_a_loop(coroutine: Any) -> Any:
            loop = loop_factory() if loop_factory else asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                return loop.run_until_complete(coroutine)
            finally:
                asyncio.set_event_loop(None)
                loop.close()

        async def timed(loops: int) -> float:
            timer = time.perf_counter
            start = timer()
            for _ in range(loops):
                await call()
            return timer() - start

        async def once() -> Any:
            return await call()

        self._record(name, lambda loops: in_a_loop(timed(loops)), lambda: in_a_loop(once()), inner_loops, metadata)

    def timeit(
        self,
        name: str,
        stmt: Any = None,
        setup: Any = "pass",
        teardown: Any = "pass",
        inner_loops: int | None = None,
        duplicate: int | None = None,
        metadata: dict | None = None,
        globals: dict | None = None,
    ) -> None:
        import timeit as stdlib_timeit

        namespace = dict(globals or {})
        stmt = name if stmt is None else stmt
        if duplicate and duplicate > 1:  # pyperf repeats the statement inside the loop, and divides
            if not isinstance(stmt, str):
                raise ValueError("timeit: duplicate needs the statement as a string")
            stmt = "\n".join([stmt] * duplicate)
        timer = stdlib_timeit.Timer(stmt, setup, timer=time.perf_counter, globals=namespace)
        if isinstance(teardown, str):
            code = compile(teardown, "<teardown>", "exec")

            def finish() -> None:
                exec(code, namespace)
        else:
            finish = teardown

        def time_loops(loops: int) -> float:
            if not loops:
                return 0.0
            elapsed = timer.timeit(loops)
            finish()
            return elapsed

        def run_once() -> None:
            time_loops(1)

        self._record(name, time_loops, run_once, (inner_loops or 1) * (duplicate or 1), metadata)

    def bench_command(self, name: str, command: list[str]) -> None:
        def time_loops(loops: int) -> float:
            timer = time.perf_counter
            start = timer()
            for _ in range(loops):
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            return timer() - start

        def run_once() -> None:
            time_loops(1)

        self._record(name, time_loops, run_once, None, None)

    def _record(
        self,
        name: str,
        time_loops: Callable[[int], float],
        run_once: Callable[[], Any],
        inner_loops: int | None,
        metadata: dict | None,
    ) -> None:
        self.parse_args()
        if not isinstance(name, str) or not name:
            raise ValueError(f"benchmark name must be a non-empty string, not {name!r}")
        if inner_loops is not None and (not isinstance(inner_loops, int) or inner_loops < 1):
            raise ValueError(f"inner_loops must be a positive int, not {inner_loops!r}")
        Runner.recorded.append(
            Recorded(name, time_loops, run_once, inner_loops or 1, {**self.metadata, **(metadata or {})})
        )


class PlainDataComparator(Comparator):
    """Exact comparison of plain-data outputs; anything else (an object without a meaningful
    ``==``) is not compared, and the note says so rather than calling it equivalent silently."""

    name = "exact (plain data)"

    def check(self, expected: Any, actual: Any) -> Outcome:
        if not (_plain(expected) and _plain(actual)):
            kinds = {type(expected).__name__, type(actual).__name__}
            return Outcome(True, note=f"output of type {'/'.join(sorted(kinds))} not compared")
        difference = first_difference(expected, actual)
        return Outcome(difference is None, difference)


def _plain(value: Any, depth: int = 0) -> bool:
    if depth > 20:
        return False
    if isinstance(value, PLAIN_DATA):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


class _TimesItself:
    """The contender of every case: called with the case's ``Recorded``, it runs one iteration;
    the worker's ``measured_region`` lets ``times_itself`` time ``loops`` iterations instead."""

    __name__ = CONTENDER

    def __call__(self, recorded: Recorded) -> Any:
        return _in_main(recorded.script, recorded.run_once)

    @staticmethod
    def times_itself(recorded: Recorded, loops: int) -> float:
        return _in_main(recorded.script, recorded.seconds_for, loops)  # time_loops times itself

    @staticmethod
    def loops_run(recorded: Recorded) -> int:
        """The iterations the last ``times_itself`` ran: whole calls of the script's function, by
        which the region scales its CPU time to the ``loops`` it reports."""
        return recorded.iterations_run


def load(path: Path) -> Benchmark:
    """Run the script as ``__main__`` with the recording Runner and return it as a Benchmark."""
    argv = [str(path), *shlex.split(os.environ.get(ARGS_VARIABLE, ""))]
    importable_neighbours(str(path.parent))  # as `python script.py` would: it may import its neighbours
    Runner.recorded = []
    with _recording_pyperf(), _argv(argv):
        script = _run_as_main(path)
    recorded, Runner.recorded = Runner.recorded, []
    for item in recorded:
        item.script = script
    if not recorded:
        raise BenchmarkFileError(
            f"{path}: the pyperf script asked to time nothing (no bench_func, bench_time_func, "
            "bench_async_func, timeit or bench_command call ran)"
        )
    metadata = recorded[0].metadata
    benchmark = Benchmark(
        script_name(path), description=str(metadata.get("description", "")), compare=PlainDataComparator(), fuzz=False
    )
    for item in recorded:
        benchmark.case(lambda item=item: item, name=item.name, metadata=_json_safe(item.metadata))
    benchmark.contender(_TimesItself(), name=CONTENDER, description="the script's own benchmark functions, unchanged")
    return benchmark


def _run_as_main(path: Path) -> types.ModuleType:
    """Run the script as ``python script.py`` would, and keep its module: what it times later
    (``timeit(setup="from __main__ import DATA")``, a function doing ``import __main__``) finds the
    script as ``__main__``, as under pyperf, whose workers run the script itself."""
    script = types.ModuleType("__main__")
    script.__file__ = str(path)
    code = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)  # not this module's __future__
    _in_main(script, exec, code, vars(script))
    return script


def _in_main(script: types.ModuleType | None, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` with ``script`` as ``sys.modules["__main__"]`` (perflab's worker module
    before and after; left as it is for None). A plain function, not a context manager: it runs
    once a call inside the measured region, where contextlib's frames would show in the profile."""
    saved = sys.modules.get("__main__")
    if script is not None:
        sys.modules["__main__"] = script
    try:
        return function(*args)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _json_safe(metadata: dict[str, Any]) -> dict[str, Any]:
    """pyperf metadata as results can hold it: JSON values kept, anything else as its str()."""
    safe: dict[str, Any] = {}
    for key, value in metadata.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            value = str(value)
        safe[str(key)] = value
    return safe


def script_name(path: Path) -> str:
    """pyperformance's ``bm_json_dumps/run_benchmark.py`` is ``json_dumps``; others, the file's stem."""
    if path.stem == "run_benchmark" and path.parent.name.startswith("bm_"):
        return path.parent.name[len("bm_") :]
    return path.stem


@contextmanager
def _argv(argv: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


@contextmanager
def _recording_pyperf() -> Iterator[None]:
    """``pyperf.Runner`` is the recording Runner while the script loads (real pyperf otherwise)."""
    try:
        import pyperf
    except ImportError:
        pyperf = _stand_in()
        sys.modules["pyperf"] = pyperf
    saved = pyperf.Runner
    pyperf.Runner = Runner
    try:
        yield
    finally:
        pyperf.Runner = saved


def _stand_in() -> types.ModuleType:
    module: Any = types.ModuleType("pyperf", "perflab's stand-in for pyperf (pyperf is not installed here)")
    module.Runner = Runner
    module.perf_counter = time.perf_counter
    module.python_has_jit = lambda: sys.implementation.name == "pypy"

    def missing(name: str) -> Any:
        raise AttributeError(
            f"pyperf.{name}: pyperf is not installed under {sys.executable}, and perflab's stand-in "
            "only offers Runner, perf_counter and python_has_jit; install pyperf there"
        )

    module.__getattr__ = missing
    return module
