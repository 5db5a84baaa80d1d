"""Benchmark files: the declarations a user writes, and loading them from disk.

A benchmark file is a plain Python module holding one ``perflab.Benchmark``::

    bench = perflab.Benchmark("json_dumps", compare="json")

    @bench.case(bytes=lambda obj: len(json.dumps(obj)))
    def NESTED():                  # builds the input, outside the timed region
        return {...}

    @bench.contender               # the function that is timed: f(input) -> output
    def stdlib(obj):
        return json.dumps(obj)

    @bench.contender(setup=True)   # called once per worker; returns the function to time
    def orjson():
        import orjson              # ImportError here means "skipped: not installed"
        return orjson.dumps

    @bench.strategy                # optional: generated inputs for equivalence fuzzing
    def inputs(st):                # ``st`` is hypothesis.strategies, imported only when fuzzing
        return st.dictionaries(st.text(), st.integers())

``Benchmark(..., fuzz=False)`` opts out of generated inputs (e.g. when an input cannot be
generated); the stateful patterns of perflab.worker.fuzz still run on the declared cases.

This module is imported by worker processes, possibly under another interpreter, so it only
uses the standard library.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from perflab.comparators import Comparator, resolve_comparator


class BenchmarkFileError(Exception):
    """A benchmark file cannot be loaded or is not a valid declaration."""


@dataclass
class Case:
    """One input of the operation; ``build`` runs outside the timed region."""

    name: str
    build: Callable[[], Any]
    bytes: int | Callable[[Any], int] | None = None
    items: int | Callable[[Any], int] | None = None

    def work(self, value: Any) -> tuple[str, float] | None:
        """The amount of work one call does on ``value``, as (unit, amount), if declared."""
        for unit, declared in (("B", self.bytes), ("items", self.items)):
            if declared is not None:
                amount = declared(value) if callable(declared) else declared
                return unit, float(amount)
        return None


@dataclass
class Contender:
    """One implementation of the operation."""

    name: str
    function: Callable[..., Any]
    setup: bool = False
    reference: bool = False
    description: str = ""

    def build(self) -> Callable[[Any], Any]:
        """Return the callable to time (running the setup function if there is one)."""
        if not self.setup:
            return self.function
        built = self.function()
        if not callable(built):
            raise TypeError(f"setup of contender {self.name!r} returned {type(built).__name__}, "
                            "expected the function to time")
        return built


@dataclass
class Benchmark:
    """An operation, its cases, its contenders and how their outputs are compared."""

    name: str
    description: str = ""
    compare: Any = "exact"
    cases: dict[str, Case] = field(default_factory=dict)
    contenders: dict[str, Contender] = field(default_factory=dict)
    fuzz: bool = True                 # False: no generated inputs (perflab.worker.fuzz)
    comparator: Comparator = field(init=False)
    # fn(hypothesis.strategies) -> strategy of inputs; None: perflab.worker.fuzz's JSON-like default.
    input_strategy: Callable[[Any], Any] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.comparator = resolve_comparator(self.compare)

    def case(self, function: Callable | None = None, *, name: str | None = None,
             bytes: int | Callable | None = None, items: int | Callable | None = None) -> Any:
        """Declare a case. ``bytes``/``items``: work per call (a number or a function of the input)."""
        if bytes is not None and items is not None:
            raise BenchmarkFileError("a case declares either bytes or items of work, not both")

        def register(build: Callable) -> Callable:
            case_name = name or build.__name__
            _check_new_name(self.cases, case_name, "case")
            self.cases[case_name] = Case(case_name, build, bytes=bytes, items=items)
            return build

        return register(function) if function is not None else register

    def contender(self, function: Callable | None = None, *, name: str | None = None,
                  setup: bool = False, reference: bool = False, description: str = "") -> Any:
        """Declare a contender; the first one, or the one with ``reference=True``, is the reference."""

        def register(fn: Callable) -> Callable:
            contender_name = name or fn.__name__
            _check_new_name(self.contenders, contender_name, "contender")
            if reference and any(c.reference for c in self.contenders.values()):
                raise BenchmarkFileError(f"two contenders are marked reference=True "
                                         f"(second: {contender_name!r})")
            doc = description or (fn.__doc__ or "").strip().split("\n")[0]
            self.contenders[contender_name] = Contender(contender_name, fn, setup, reference, doc)
            return fn

        return register(function) if function is not None else register

    def strategy(self, function: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """Declare how to generate inputs: ``function(hypothesis.strategies)`` returns a strategy.

        It is called only in a fuzzing worker, so the file loads where Hypothesis is missing.
        """
        if self.input_strategy is not None:
            raise BenchmarkFileError(f"a strategy is declared twice (second: {function.__name__!r})")
        self.input_strategy = function
        return function

    @property
    def reference(self) -> Contender:
        marked = [c for c in self.contenders.values() if c.reference]
        return marked[0] if marked else next(iter(self.contenders.values()))


def _check_new_name(existing: dict, name: str, kind: str) -> None:
    if name in existing:
        raise BenchmarkFileError(f"{kind} {name!r} is declared twice")


def load_benchmark(path: str | Path) -> Benchmark:
    """Import a benchmark file and return the one ``Benchmark`` it declares.

    The file's directory goes first on ``sys.path`` so that it can import its neighbours.
    Every failure becomes a ``BenchmarkFileError`` whose message names the file.
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise BenchmarkFileError(f"{path}: no such benchmark file")
    module_name = f"perflab_benchmark_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BenchmarkFileError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise BenchmarkFileError(f"{path}:{error.lineno}: syntax error: {error.msg}") from None
    except BenchmarkFileError as error:
        raise BenchmarkFileError(f"{path}: {error}") from None
    except BaseException as error:  # noqa: BLE001 - any failure of user code is reported, not raised
        line = _user_line(error, path)
        raise BenchmarkFileError(f"{path}{line}: {type(error).__name__} while importing: {error}") from None
    # One Benchmark under two names (``b = a``) is still one.
    found = list({id(value): value for value in vars(module).values() if isinstance(value, Benchmark)}.values())
    if len(found) != 1:
        raise BenchmarkFileError(f"{path}: expected exactly one perflab.Benchmark, found {len(found)}")
    benchmark = found[0]
    if not benchmark.cases:
        raise BenchmarkFileError(f"{path}: benchmark {benchmark.name!r} declares no case")
    if not benchmark.contenders:
        raise BenchmarkFileError(f"{path}: benchmark {benchmark.name!r} declares no contender")
    return benchmark


def _user_line(error: BaseException, path: Path) -> str:
    """':LINE' of the deepest traceback frame inside the benchmark file, or ''."""
    line = ""
    tb = error.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path:
            line = f":{tb.tb_lineno}"
        tb = tb.tb_next
    return line
