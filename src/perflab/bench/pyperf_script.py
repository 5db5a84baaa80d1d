"""pyperf scripts, unchanged, as perflab benchmarks: a Runner-compatible object records what the
script asks to time, and perflab's runner, statistics, profiler and store do the timing.

A pyperf script is recognised by its source: it imports ``pyperf`` and declares no
``perflab.Benchmark`` (perflab.bench.loading.is_pyperf_script). It is run as ``python script.py``
runs it (``__main__``, runpy's module globals) with ``pyperf.Runner`` replaced by ``Runner`` below,
whose ``bench_func``, ``bench_time_func``, ``bench_async_func``, ``timeit`` and ``bench_command``
record the benchmark instead of spawning pyperf's workers. Each recorded name becomes a case of one
contender, ``script``. A worker's job on a case runs inside the script's call that records it
(``serve``), as pyperf's worker measures inside its call: what the script sets up is still there,
what it cleans up afterwards not yet gone; the timed calls run in perflab's fresh, pinned,
interleaved worker processes.

- ``bench_func(name, f, *args)``: perflab times ``f(*args)`` itself. What it returns is not
  compared (``NotCompared``), as pyperf ignores it.
- ``bench_time_func(name, time_func, *args)``: the script times itself: ``time_func(loops, *args)``
  returns the seconds that ``loops`` iterations took, and perflab uses that (the worker's
  ``measured_region`` hands the loop count over through ``times_itself``).
- ``inner_loops=N``: times are per inner iteration, as pyperf reports them (``Recorded.seconds_for``).
- Arguments: ``runner.argparser`` accepts pyperf's own options (parsed and ignored: perflab's
  stopping rule decides processes, values and loops), refuses by name those perflab does another
  way (``-o``: ``--pyperf DIR``), and takes the script's; the script's options are given in
  ``PERFLAB_PYPERF_ARGS`` (e.g. ``PERFLAB_PYPERF_ARGS="--cases NESTED" perflab run bm.py``), after
  those of a pyperformance benchmark's metadata (perflab.bench.pyperformance_metafile).
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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from perflab.bench.comparators import NotCompared
from perflab.bench.neighbours import importable_neighbours
from perflab.bench.spec import Benchmark, BenchmarkFileError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

ARGS_VARIABLE = "PERFLAB_PYPERF_ARGS"
CONTENDER = "script"

# pyperf's own command-line options (pyperf 2.11's Runner): accepted so that scripts parse as under
# pyperf, and ignored, since perflab's stopping rule decides processes, values and loops, and its
# own output shows what pyperf's display options would.
_PYPERF_FLAGS = (
    ("--rigorous",),
    ("--fast",),
    ("--debug-single-value",),
    ("-v", "--verbose"),
    ("-q", "--quiet"),
    ("--worker",),
    ("--in-process",),
    ("--calibrate-loops",),
    ("--recalibrate-loops",),
    ("--calibrate-warmups",),
    ("--recalibrate-warmups",),
    ("-d", "--dump"),
    ("-m", "--metadata"),
    ("-g", "--hist"),
    ("-t", "--stats"),
    ("--copy-env",),
    ("--no-locale",),
)
_PYPERF_VALUED = (
    ("-p", "--processes"),
    ("-n", "--values"),
    ("-w", "--warmups"),
    ("-l", "--loops"),
    ("--min-time",),
    ("--pipe",),
    ("--worker-task",),
    ("--inherit-environ",),
    ("--affinity",),
    ("--timeout",),
)
# pyperf options perflab does otherwise: refused by name, so that nobody waits for a file or a
# measurement that perflab would not make.
_PYPERF_REFUSED = {
    ("-o", "--output"): "perflab writes pyperf's JSON with `perflab run --pyperf DIR`",
    ("--append",): "perflab writes pyperf's JSON with `perflab run --pyperf DIR`",
    ("--python",): "compare interpreters with `perflab compare --python A --python B`",
    ("--compare-to",): "compare interpreters with `perflab compare --python A --python B`",
    ("--python-names",): "compare interpreters with `perflab compare --python A --python B`",
    ("--profile",): "profile with `perflab profile`",
    ("--hook",): "perflab runs no pyperf hooks; `perflab profile` and `--metric` measure beside time",
    ("--tracemalloc",): "measure memory with `perflab run --metric memory`",
    ("--track-memory",): "measure memory with `perflab run --metric memory`",
}


class _Refused(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        reason = next(why for options, why in _PYPERF_REFUSED.items() if option_string in options)
        raise BenchmarkFileError(f"{ARGS_VARIABLE}: pyperf's {option_string} is not taken by perflab: {reason}")


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
    script: types.ModuleType | None = None  # that script's module
    at_record: Callable[[list[Recorded]], None] | None = None  # perflab.bench.pyperf_script.serve's

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
        hooks: Any = None,
    ) -> None:
        if not isinstance(hooks, (list, tuple, type(None))):  # as pyperf checks it; the hooks are not run
            raise RuntimeError("hooks parameter should be list, tuple or None")
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.args: argparse.Namespace | None = None
        self.argparser = _argparser or argparse.ArgumentParser(
            prog=Path(sys.argv[0]).name, description="Benchmark (run by perflab)"
        )
        for flags in _PYPERF_FLAGS:
            self.argparser.add_argument(*flags, action="store_true", help=argparse.SUPPRESS)
        for valued in _PYPERF_VALUED:
            self.argparser.add_argument(*valued, help=argparse.SUPPRESS)
        for refused in _PYPERF_REFUSED:
            flag = refused[0] in ("--tracemalloc", "--track-memory")
            self.argparser.add_argument(*refused, action=_Refused, nargs=0 if flag else "?", help=argparse.SUPPRESS)

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
            Recorded(name, time_loops, run_once, inner_loops or 1, {**self.metadata, **(metadata or {})}, Runner.script)
        )
        if Runner.at_record is not None:
            Runner.at_record(Runner.recorded)


class _TimesItself:
    """The contender of every case: called with the case's ``Recorded``, it runs one iteration;
    the worker's ``measured_region`` lets ``times_itself`` time ``loops`` iterations instead."""

    __name__ = CONTENDER
    # What the script starts beside its calls (fastapi's server thread) is part of the benchmark,
    # as under pyperf: timing does not refuse it (perflab.bench.worker.timing).
    works_beside_its_calls = True

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


def load(path: str, options: Sequence[str] = (), name: str | None = None) -> Benchmark:
    """Run the script as ``__main__`` with the recording Runner and return it as a Benchmark: the
    script run as ``python path *options ARGS`` (ARGS from PERFLAB_PYPERF_ARGS), named ``name``
    (else after its file). Inside a job ``serve`` runs, the benchmark recorded so far."""
    if _live is not None and _live[0] == os.path.realpath(path):
        return _live[1]
    recorded = _run(Path(path), options)
    if not recorded:
        raise BenchmarkFileError(
            f"{path}: the pyperf script asked to time nothing (no bench_func, bench_time_func, "
            "bench_async_func, timeit or bench_command call ran)"
        )
    return _benchmark(Path(path), name, recorded)


def serve(
    path: str, options: Sequence[str], name: str | None, case: str, job: Callable[[], Any]
) -> BaseException | None:
    """Run the script, and run ``job`` (a worker's job on ``case``) inside the script's call that
    asks to time ``case``, as pyperf times there: while the script's state is what it set up for
    it (a temporary directory not yet removed, a repository still open). The script then goes on
    (its clean-up runs). Returns what ``job`` raised, for the caller to raise once the script is
    done: the script must not catch it, nor its failure be taken for the script's."""
    failure: list[BaseException] = []
    served: list[str] = []

    def at_record(recorded: list[Recorded]) -> None:
        global _live
        if served or recorded[-1].name != case:
            return
        served.append(case)
        _live = (os.path.realpath(path), _benchmark(Path(path), name, list(recorded)))
        try:
            job()
        except BaseException as error:  # noqa: B036 - handed back, and raised after the script's clean-up
            failure.append(error)
        finally:
            _live = None

    _run(Path(path), options, at_record)
    if not served:
        raise BenchmarkFileError(f"{path}: the pyperf script did not ask to time {case!r} when run again")
    return failure[0] if failure else None


# (the script's real path, its benchmark) while ``serve`` runs a job inside the script's call
_live: tuple[str, Benchmark] | None = None

# Standard packages whose C accelerator a script may block to time their pure-Python version.
_ACCELERATED = frozenset({"pickle", "heapq", "bisect", "datetime", "decimal", "json", "xml"})


def _run(
    path: Path, options: Sequence[str], at_record: Callable[[list[Recorded]], None] | None = None
) -> list[Recorded]:
    """What the script asks to time, run as ``__main__``; ``at_record(recorded so far)`` after each request."""
    argv = [str(path), *options, *shlex.split(os.environ.get(ARGS_VARIABLE, ""))]
    importable_neighbours(str(path.parent))  # as `python script.py` would: it may import its neighbours
    script = _main_module(path)
    Runner.recorded, Runner.script, Runner.at_record = [], script, at_record
    # The worker's own imports of modules with a C accelerator are not the script's: it imports
    # them afresh, as a fresh interpreter would, so that blocking the accelerator
    # (sys.modules["_pickle"] = None, pyperformance's *_pure_python) gives the pure-Python module.
    workers_own = {name: sys.modules.pop(name) for name in list(sys.modules) if name.partition(".")[0] in _ACCELERATED}
    try:
        with _recording_pyperf(), _argv(argv):
            code = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)  # not this module's __future__
            _in_main(script, exec, code, vars(script))
        return Runner.recorded
    finally:
        Runner.recorded, Runner.script, Runner.at_record = [], None, None
        sys.modules.update(workers_own)


def _benchmark(path: Path, name: str | None, recorded: list[Recorded]) -> Benchmark:
    metadata = recorded[0].metadata
    benchmark = Benchmark(
        name or script_name(path),
        description=str(metadata.get("description", "")),
        compare=NotCompared(),
        fuzz=False,
    )
    for item in recorded:
        benchmark.case(lambda item=item: item, name=item.name, metadata=_json_safe(item.metadata))
    benchmark.contender(_TimesItself(), name=CONTENDER, description="the script's own benchmark functions, unchanged")
    return benchmark


def _main_module(path: Path) -> types.ModuleType:
    """The module ``python script.py`` runs the script in (runpy's for a file): ``__builtins__`` the
    builtins module, no spec. It stays the script's ``__main__`` for what it times later
    (``timeit(setup="from __main__ import DATA")``, a function doing ``import __main__``), as under
    pyperf, whose workers run the script itself."""
    import builtins
    import importlib.machinery

    script = types.ModuleType("__main__")
    script.__file__ = str(path)
    script.__cached__ = None  # type: ignore[attr-defined]
    script.__builtins__ = builtins  # type: ignore[attr-defined]
    script.__loader__ = importlib.machinery.SourceFileLoader("__main__", str(path))
    script.__package__ = None
    script.__spec__ = None
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
