"""asv benchmark suites, unchanged, as perflab benchmarks: the benchmark directory is discovered
as asv discovers it, every timed benchmark at every parameter combination becomes a case named
as asv names it, and perflab's runner, statistics, store and A/B comparisons do the timing.

Discovery follows asv_runner (discovery.py, benchmarks/_base.py) exactly:

- The directory is imported as a package named after it (it needs an ``__init__.py``), and every
  module below it; a module's public functions and the methods of its public, non-abstract
  classes are benchmarks when their name matches a kind's pattern: ``time_*`` / ``Time*``,
  ``timeraw_*``, ``mem_*``, ``peakmem_*``, ``track_*`` (``benchmark_name`` renames one,
  ``skip_benchmark`` leaves it out). A name is the module path below the directory, then the
  class, then the function: ``sub.module.Class.time_x``.
- Attributes are looked up on the function, then the class instance, then the module (so a
  module's ``params`` or ``setup`` applies to its functions): ``params`` / ``param_names``
  (every combination is a case, named ``name(p1, p2)`` with the parameters' reprs, as ``asv
  compare`` prints them), ``setup`` / ``teardown`` (all of them, the module's first),
  ``setup_cache`` (its value is passed first to setup, the benchmark and teardown), ``skip_params``,
  ``number``.

How asv's running is kept (docs/migrating.md):

- ``setup`` runs before the benchmark, outside the timed region; a ``NotImplementedError`` there
  skips that combination (``Skipped``), as do ``skip_params``.
- A time is asv's time of one call (asv_runner 0.3's ``TimeBenchmark``), measured as asv
  measures it: the garbage collector off while timing (as ``timeit``); the benchmark called
  through the zero-argument function asv times (with parameters or a ``setup_cache`` value, a
  function calling it with them, reading it from an object in the state of asv_runner's); with a
  ``setup`` hook, ``teardown`` and ``setup`` again before every call and each call timed alone (its
  own pair of clock reads, as asv times one call per sample then; a declared ``number`` makes a
  sample the mean of that many), else calls timed in batches of ``number`` (all of a value's calls
  when none is declared), setup again before each batch. A perflab value holds many such samples,
  so that no call is timed right after the worker wakes (one call timed alone then takes several
  times longer: cold caches), and is the middle one (their median), as asv keeps the median of its
  samples (their mean took in the rare call an interrupt lands in); the setups of one value are
  limited to about ``_SETUP_SECONDS``.
- ``setup_cache`` runs once per worker process (asv runs it once per run and pickles its value to
  each benchmark's process); a module's parameter-free ``setup`` runs before it, as in asv.
- ``timeraw_*`` returns code (or ``(code, setup)``); each value runs it in a fresh interpreter with
  ``timeit`` and ``number`` executions (default 1), as asv does; the interpreter's start-up is not timed.
- ``mem_*``, ``peakmem_*`` and ``track_*`` report a size or a number, not a time: they are
  discovered (``discover`` lists them) but are not cases; the Benchmark's ``notes`` name them.
- ``repeat``, ``rounds``, ``processes``, ``sample_time``, ``warmup_time`` and ``min_run_count``
  are asv's sampling plan: perflab's stopping rule, warm-up values and fresh processes replace it;
  ``timeout`` is perflab's ``--timeout``, ``timer`` its ``time.perf_counter``.

asv need not be installed. Runs in worker processes: standard library only.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import inspect
import itertools
import pkgutil
import re
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from perflab.bench.comparators import Comparator, Outcome, first_difference
from perflab.bench.optional import Skipped
from perflab.bench.spec import Benchmark, BenchmarkFileError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

CONTENDER = "asv"
PLAIN_DATA = (type(None), bool, int, float, complex, str, bytes)
TIMED = ("time", "timeraw")
# asv_runner's benchmark kinds and the names that make a function one (benchmarks/*.py's name_regex).
KINDS = {
    "mem": re.compile("^(Mem[A-Z_].+)|(mem_.+)$"),
    "peakmem": re.compile("^(PeakMem[A-Z_].+)|(peakmem_.+)$"),
    "time": re.compile("^(Time[A-Z_].+)|(time_.+)$"),
    "timeraw": re.compile("^(Timeraw[A-Z_].+)|(timeraw_.+)$"),
    "track": re.compile("^(Track[A-Z_].+)|(track_.+)$"),
}
_ADDRESS = re.compile(r"^(<.*) at (0x[\da-fA-F]*)(>)$")
# A timeraw_ benchmark's fresh interpreter runs the code it is sent, which imports only what asv's
# does (timeit): the timed statement finds no module loaded that a fresh ``python`` would not have.
_RAW_INTERPRETER = "import sys; exec(sys.stdin.read())"
# The seconds the setups before one value's calls may take: a cheap setup gives a value thousands of
# calls, one that lasts this long gives it one call.
_SETUP_SECONDS = 0.005
_RAW_TIMER = "from timeit import timeit, default_timer\nprint(repr(timeit({}, {}, number={}, timer=default_timer)))\n"


@dataclass
class Discovered:
    """One asv benchmark: a function or method, and where its attributes are looked up."""

    name: str
    kind: str
    function: Callable[..., Any]  # the bound method for a class's benchmark
    sources: list[Any]  # asv's attribute sources: the function, the class instance, the module
    params: list[list[Any]] = field(default_factory=list)  # the values of each parameter
    ids: list[list[str]] = field(default_factory=list)  # their reprs, as asv names them

    def attribute(self, name: str, default: Any = None) -> Any:
        """The first source's ``name``, as asv_runner's ``_get_first_attr``."""
        for source in self.sources:
            value = getattr(source, name, None)
            if value is not None:
                return value
        return default

    def all_named(self, name: str) -> list[Any]:
        """Every source's attribute named ``name`` in any case (``setUp``), as ``_get_all_attrs``."""
        found = []
        for source in self.sources:
            matching = [getattr(source, key) for key in dir(source) if key.lower() == name]
            if len(matching) > 1:
                raise BenchmarkFileError(f"{self.name}: more than one {name} function in {source!r}")
            found += [value for value in matching if value is not None]
        return found

    def combinations(self) -> Iterator[tuple[str, tuple[Any, ...]]]:
        """(case name, parameter values) for every combination, in asv's order."""
        if not self.params:
            yield self.name, ()
            return
        for ids, values in zip(itertools.product(*self.ids), itertools.product(*self.params)):
            yield case_name(self.name, ids), values


def case_name(name: str, ids: tuple[str, ...]) -> str:
    """A benchmark at one parameter combination, as ``asv compare`` prints it: ``name(10, 'a')``
    (each parameter's repr on one line)."""
    return f"{name}({', '.join(' '.join(text.split()) for text in ids)})"


def discover(directory: Path) -> list[Discovered]:
    """Every benchmark of the asv benchmark directory, in asv's order, imported as asv imports it."""
    directory = directory.resolve()
    if not (directory / "__init__.py").is_file():
        raise BenchmarkFileError(f"{directory}: not an asv benchmark directory (no __init__.py in it)")
    found: dict[str, Discovered] = {}
    for module in _modules(directory):
        for attr_name, value in list(vars(module).items()):
            if attr_name.startswith("_"):
                continue
            if inspect.isclass(value) and not inspect.isabstract(value):
                for method_name, method in inspect.getmembers(value):
                    if inspect.isfunction(method) or inspect.ismethod(method):
                        _add(found, method_name, module, value, method)
            elif inspect.isfunction(value):
                _add(found, attr_name, module, None, value)
    return list(found.values())


def _modules(directory: Path) -> Iterator[ModuleType]:
    """The package the directory is, then every module below it (asv_runner's ``disc_modules``)."""
    name = directory.name
    spec = importlib.util.spec_from_file_location(
        name, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    if spec is None or spec.loader is None:
        raise BenchmarkFileError(f"{directory}: cannot be imported as a package")
    package = importlib.util.module_from_spec(spec)
    for loaded in [module for module in sys.modules if module == name or module.startswith(f"{name}.")]:
        del sys.modules[loaded]  # another suite of the same name, loaded before in this process
    sys.modules[name] = package  # its modules import each other as ``name.module``, as under asv
    spec.loader.exec_module(package)
    yield package
    yield from _below(package)


def _below(package: ModuleType) -> Iterator[ModuleType]:
    for _, name, _ in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
        module = importlib.import_module(name)
        yield module
        if getattr(module, "__path__", None):
            yield from _below(module)


def _kind(attr_name: str, function: Any) -> str | None:
    if getattr(function, "skip_benchmark", False):
        return None
    custom = getattr(function, "benchmark_name", None)
    search = custom.split(".")[-1] if isinstance(custom, str) else attr_name
    return next((kind for kind, pattern in KINDS.items() if pattern.match(search)), None)


def _add(found: dict[str, Discovered], attr_name: str, module: ModuleType, klass: type | None, function: Any) -> None:
    kind = _kind(attr_name, function)
    if kind is None:
        return
    below = module.__name__.split(".", 1)[1:]  # the module path below the benchmark directory
    custom = getattr(function, "benchmark_name", None)
    if klass is None:
        name = custom or ".".join([*below, function.__name__])
        sources = [function, module]
    else:
        instance = klass()  # one instance per benchmark, made at discovery, as asv does
        function = getattr(instance, attr_name)
        name = custom or ".".join([*below, klass.__name__, attr_name])
        sources = [function, instance, module]
    if name in found:  # a class imported into a second module keeps that module's name; one name, one benchmark
        return
    benchmark = Discovered(name, kind, function, sources)
    benchmark.params, benchmark.ids = _parameters(benchmark)
    found[name] = benchmark


def _parameters(benchmark: Discovered) -> tuple[list[list[Any]], list[list[str]]]:
    """asv_runner's ``_validate_params`` and ``_unique_param_ids``: one parameter given as a flat
    list is a list of one; the ids are reprs without memory addresses, repeats numbered."""
    params = list(benchmark.attribute("params", []))
    params = (
        [list(entry) for entry in params]
        if params and isinstance(params[0], (tuple, list))
        else [params]
        if params
        else []
    )
    ids = []
    for values in params:
        reprs = [_repr(value) for value in values]
        counts = Counter(reprs)
        seen: Counter[str] = Counter()
        for index, text in enumerate(reprs):
            if counts[text] > 1:
                reprs[index] = f"{text} ({seen[text]})"
                seen[text] += 1
        ids.append(reprs)
    return params, ids


def _repr(value: Any) -> str:
    text = repr(value)
    found = _ADDRESS.match(text)
    if found and (own := _ADDRESS.match(object.__repr__(value))) and own[2] == found[2]:
        return found[1] + found[3]
    return text


class Prepared:
    """A case's input: one timed benchmark at one parameter combination, set up (a recipe, not
    data: equivalence's input checks see the same object before and after a call)."""

    def __init__(self, benchmark: Discovered, values: tuple[Any, ...]) -> None:
        self.benchmark = benchmark
        self.kind = benchmark.kind
        self.values = values
        self.arguments = values
        self.setups = benchmark.all_named("setup")[::-1]  # the module's first
        self.teardowns = benchmark.all_named("teardown")
        self.number = 0
        self.used = False  # called since its last setup
        self.setup_seconds = 0.0  # how long its setup took

    def __deepcopy__(self, memo: dict) -> Prepared:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("an asv benchmark at its parameters is not data")

    def setup(self) -> None:
        """asv's ``do_setup``: ``skip_params`` and a ``NotImplementedError`` in setup skip."""
        skipped = self.benchmark.attribute("skip_params", [])
        if tuple(self.values) in [tuple(entry) for entry in skipped]:
            raise Skipped(f"{self.benchmark.name}: its parameters are in skip_params")
        cache = _setup_cache(self.benchmark, self.setups)
        self.arguments = self.values if cache is _NO_CACHE else (cache, *self.values)
        try:
            self.setup_seconds = self._timed_setup()
        except NotImplementedError as error:
            raise Skipped(f"setup raised NotImplementedError({str(error)!r}), which skips in asv") from None
        # A setup just over _SETUP_SECONDS gives each value one call: the fastest of three decides,
        # as the first may be cold or lose the CPU on a loaded machine.
        for _ in range(2):
            if not _SETUP_SECONDS <= self.setup_seconds < 10 * _SETUP_SECONDS:
                break
            for teardown in self.teardowns:
                teardown(*self.arguments)
            self.setup_seconds = min(self.setup_seconds, self._timed_setup())
        # Read after setup, which may change it (asv's _load_vars); timeraw_ defaults to 1.
        self.number = int(self.benchmark.attribute("number", 1 if self.kind == "timeraw" else 0))

    def _timed_setup(self) -> float:
        begun = time.perf_counter()
        for setup in self.setups:
            setup(*self.arguments)
        return time.perf_counter() - begun

    def redo_setup(self) -> None:
        """asv's ``redo_setup`` before a sample: teardown, then setup, when a call used the state."""
        if self.used:
            for teardown in self.teardowns:
                teardown(*self.arguments)
            for setup in self.setups:
                setup(*self.arguments)
        self.used = True


_NO_CACHE = object()
_caches: dict[Any, Any] = {}  # setup_cache's value per function, for this process


def _setup_cache(benchmark: Discovered, setups: list[Callable[..., Any]]) -> Any:
    function = benchmark.attribute("setup_cache")
    if function is None:
        return _NO_CACHE
    key = getattr(function, "__func__", function)  # one class's methods share their setup_cache
    if key not in _caches:
        # A module's parameter-free setup runs first, as in asv (asv#1592); a class's setup(self)
        # waits for setup_cache's value, as asv_runner 0.3 keeps it (asv_runner#52).
        for setup in setups:
            if inspect.ismethod(setup):
                continue
            try:
                inspect.signature(setup).bind()
            except TypeError:
                continue
            setup()
        _caches[key] = function()
    value = _caches[key]
    return _NO_CACHE if value is None else value  # asv passes no cache argument for None


class _RunsAsv:
    """The contender of every case: one call runs the benchmark once; ``times_itself`` times the
    worker's values as asv times its samples (the module's docstring)."""

    __name__ = CONTENDER

    def __call__(self, prepared: Prepared) -> Any:
        prepared.redo_setup()
        if prepared.kind == "timeraw":
            _raw_seconds(prepared, 1)
            return None
        return prepared.benchmark.function(*prepared.arguments)

    @staticmethod
    def max_loops(prepared: Prepared) -> int | None:
        if prepared.kind == "timeraw":
            return prepared.number  # a process per call: one value, one batch
        if prepared.setups:  # a setup per call: as many calls as their setups fit in _SETUP_SECONDS
            return max(1, int(_SETUP_SECONDS / max(prepared.setup_seconds, 1e-9)))
        return None

    @staticmethod
    def times_itself(prepared: Prepared, loops: int) -> float:
        """``loops`` times the value's time per call: the middle of its asv samples (``samples``), as
        asv keeps the median of its samples (asv_timing_causes.py, experiment 5)."""
        if prepared.kind == "timeraw":  # a fresh interpreter is its fresh state: no setup again, as in asv
            return _raw_seconds(prepared, loops)  # at most ``number`` loops (max_loops)
        # The middle value, not statistics.median: that would import decimal and fractions into every worker.
        ordered = sorted(samples(prepared, loops))
        return ordered[len(ordered) // 2] * loops


def samples(prepared: Prepared, loops: int) -> list[float]:
    """``loops`` calls timed as asv times its samples: the seconds per call of each sample. With a
    ``setup`` hook a sample is ``number`` calls (one when none is declared), each after its own setup
    and timed alone; without one, a batch of ``number`` calls (all ``loops`` when none is declared)."""
    alone = bool(prepared.setups)
    batch = prepared.number or (1 if alone else max(loops, 1))
    call = timed_call(prepared)
    found = []
    collecting = gc.isenabled()
    gc.disable()
    try:
        for start in range(0, loops, batch):
            size = min(batch, loops - start)
            if alone:
                elapsed = sum(_timed(prepared, call, 1) for _ in range(size))
            else:
                elapsed = _timed(prepared, call, size)
            found.append(elapsed / size)
    finally:
        if collecting:
            gc.enable()
    return found


def _timed(prepared: Prepared, call: Callable[[], Any], calls: int) -> float:
    """Setup again, then ``calls`` calls between two clock reads (timeit's loop, as asv's sample)."""
    timer = time.perf_counter
    repeated = itertools.repeat(None, calls)
    prepared.redo_setup()
    begun = timer()
    for _ in repeated:
        call()
    return timer() - begun


def timed_call(prepared: Prepared) -> Callable[[], Any]:
    """What asv times (``_param_bound_func``): the benchmark itself, or a function calling it with
    its arguments; asv's time includes that function's call (asv's bytecode, ``self.func(*param)``,
    reading the benchmark from an object in the state of asv's: ``_AsvBenchmark``)."""
    function, arguments = prepared.benchmark.function, prepared.arguments
    if not arguments:
        return function
    harness = _AsvBenchmark(function)

    def call() -> None:
        harness.func(*arguments)

    return call


class _AsvBenchmark:
    """What asv's zero-argument function reads ``func`` from: asv_runner's benchmark object, whose
    ``__dict__`` asv_runner has materialized (``vars(self)`` in ``Benchmark._collect_dynamic_attrs``).
    On CPython 3.11 and 3.12 an attribute read from such an object does not stay specialized (CPython
    gh-106485; 3.13 no longer pays it), which made asv's time of a ~130 ns benchmark 1.2x perflab's;
    an object in the same state keeps that cost in both (docs/migrating.md)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.func = function
        vars(self)  # materializes __dict__, as asv_runner does


def _raw_seconds(prepared: Prepared, number: int) -> float:
    """A timeraw_ benchmark's code, ``number`` times in a fresh interpreter: the seconds it reports."""
    code = prepared.benchmark.function(*prepared.arguments)
    statement, setup = code if isinstance(code, tuple) else (code, "")
    request = _RAW_TIMER.format(repr(textwrap.dedent(statement)), repr(textwrap.dedent(setup)), number)
    done = subprocess.run(
        [sys.executable, "-c", _RAW_INTERPRETER], input=request, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{prepared.benchmark.name}: the timed interpreter failed: {done.stderr.strip()}")
    return float(done.stdout)


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


def load(directory: Path) -> Benchmark:
    """The asv benchmark directory as one Benchmark: a case per timed benchmark and combination."""
    found = discover(directory)
    timed = [benchmark for benchmark in found if benchmark.kind in TIMED]
    untimed = [benchmark.name for benchmark in found if benchmark.kind not in TIMED]
    if not timed:
        raise BenchmarkFileError(
            f"{directory}: no asv time_ or timeraw_ benchmark in it" + (f"; {_listing(untimed)}" if untimed else "")
        )
    benchmark = Benchmark(
        directory.name, description=f"asv suite {directory.name}", compare=PlainDataComparator(), fuzz=False
    )
    if untimed:
        benchmark.notes.append(_listing(untimed))
    for discovered in timed:
        for name, values in discovered.combinations():
            benchmark.case(_builder(discovered, values), name=name)
    benchmark.contender(_RunsAsv(), name=CONTENDER, description="the asv suite's benchmark functions, unchanged")
    return benchmark


def _builder(discovered: Discovered, values: tuple[Any, ...]) -> Callable[[], Prepared]:
    def build() -> Prepared:
        prepared = Prepared(discovered, values)
        prepared.setup()
        return prepared

    return build


def _listing(untimed: list[str]) -> str:
    return f"not timed (asv's mem_, peakmem_ and track_ record sizes and numbers): {', '.join(untimed)}"
