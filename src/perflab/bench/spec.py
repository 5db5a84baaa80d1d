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
        import orjson              # not installed: "skipped" (perflab.bench.optional)
        return orjson.dumps

    @bench.strategy                # optional: generated inputs for equivalence fuzzing
    def inputs(st):                # ``st`` is hypothesis.strategies, imported only when fuzzing
        return st.dictionaries(st.text(), st.integers())

``Benchmark(..., fuzz=False)`` opts out of generated inputs (e.g. when an input cannot be
generated); the stateful patterns of perflab.bench.worker.fuzz still run on the declared cases.

What the equivalence checks may take for granted is declared on the Benchmark too
(docs/equivalence.md): ``mutates_input=True`` for operations meant to change their argument
(each timed call then gets its own copy, made before the timed loop), ``shares_output=True`` for
APIs that return shared objects on purpose, and ``errors="any"`` or ``"ignore"`` to relax how a
contender must fail where the reference raises (default ``"same"``: a related exception type).

This module is imported by worker processes, possibly under another interpreter, so it only
uses the standard library; its classes are written out rather than dataclasses, which import
``inspect`` (with ast, dis and tokenize): ~8 ms of every worker's start-up, seconds under valgrind.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from perflab.bench.comparators import Comparator, resolve_comparator
from perflab.bench.worker.integrity import ERROR_POLICIES, ERRORS_SAME

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.commands import InnerMetric


class BenchmarkFileError(Exception):
    """A benchmark file cannot be loaded or is not a valid declaration."""


class Case:
    """One input of the operation; ``build`` runs outside the timed region."""

    def __init__(
        self,
        name: str,
        build: Callable[[], Any],
        bytes: int | Callable[[Any], int] | None = None,
        items: int | Callable[[Any], int] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.build = build
        self.bytes = bytes
        self.items = items
        self.metadata = metadata if metadata is not None else {}  # facts kept with the results (e.g. pyperf's)

    def work(self, value: Any) -> tuple[str, float] | None:
        """The amount of work one call does on ``value``, as (unit, amount), if declared."""
        for unit, declared in (("B", self.bytes), ("items", self.items)):
            if declared is not None:
                amount = declared(value) if callable(declared) else declared
                return unit, float(amount)
        return None


class Contender:
    """One implementation of the operation."""

    def __init__(
        self,
        name: str,
        function: Callable[..., Any],
        setup: bool = False,
        reference: bool = False,
        description: str = "",
    ) -> None:
        self.name = name
        self.function = function
        self.setup = setup
        self.reference = reference
        self.description = description

    def build(self) -> Callable[[Any], Any]:
        """Return the callable to time (running the setup function if there is one)."""
        if not self.setup:
            return self.function
        built = self.function()
        if not callable(built):
            raise TypeError(
                f"setup of contender {self.name!r} returned {type(built).__name__}, expected the function to time"
            )
        return built


class Benchmark:
    """An operation, its cases, its contenders and how their outputs are compared."""

    def __init__(
        self,
        name: str,
        description: str = "",
        compare: Any = "exact",
        cases: dict[str, Case] | None = None,
        contenders: dict[str, Contender] | None = None,
        fuzz: bool = True,  # False: no generated inputs (perflab.bench.worker.fuzz)
        mutates_input: bool = False,  # True: the operation changes its argument on purpose
        shares_output: bool = False,  # True: outputs may be shared objects (e.g. a cache of lists)
        errors: str = ERRORS_SAME,  # where the reference raises: "same" | "any" | "ignore"
        notes: list[str] | None = None,  # what loading found worth saying (an asv suite's untimed benchmarks)
    ) -> None:
        if errors not in ERROR_POLICIES:
            raise BenchmarkFileError(f"errors={errors!r}: use one of {', '.join(map(repr, ERROR_POLICIES))}")
        self.name = name
        self.description = description
        self.compare = compare
        self.cases = cases if cases is not None else {}
        self.contenders = contenders if contenders is not None else {}
        self.fuzz = fuzz
        self.mutates_input = mutates_input
        self.shares_output = shares_output
        self.errors = errors
        self.notes = notes if notes is not None else []
        self.comparator: Comparator = resolve_comparator(compare)
        # fn(hypothesis.strategies) -> strategy of inputs; None: perflab.bench.worker.fuzz's JSON-like default.
        self.input_strategy: Callable[[Any], Any] | None = None

    def case(
        self,
        function: Callable | None = None,
        *,
        name: str | None = None,
        bytes: int | Callable | None = None,
        items: int | Callable | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Any:
        """Declare a case. ``bytes``/``items``: work per call (a number or a function of the input);
        ``metadata``: facts about it kept in the results' metadata (str keys, JSON values)."""
        if bytes is not None and items is not None:
            raise BenchmarkFileError("a case declares either bytes or items of work, not both")

        def register(build: Callable) -> Callable:
            case_name = name or build.__name__
            _check_new_name(self.cases, case_name, "case")
            self.cases[case_name] = Case(case_name, build, bytes=bytes, items=items, metadata=dict(metadata or {}))
            return build

        return register(function) if function is not None else register

    def contender(
        self,
        function: Callable | None = None,
        *,
        name: str | None = None,
        setup: bool = False,
        reference: bool = False,
        description: str = "",
    ) -> Any:
        """Declare a contender; the first one, or the one with ``reference=True``, is the reference."""

        def register(fn: Callable) -> Callable:
            contender_name = name or fn.__name__
            _check_new_name(self.contenders, contender_name, "contender")
            if not _is_command(fn) and any(_is_command(c.function) for c in self.contenders.values()):
                raise BenchmarkFileError(
                    f"contender {contender_name!r}: a benchmark's contenders are all commands or all functions"
                )
            if reference and any(c.reference for c in self.contenders.values()):
                raise BenchmarkFileError(f"two contenders are marked reference=True (second: {contender_name!r})")
            doc = description or (fn.__doc__ or "").strip().split("\n")[0]
            self.contenders[contender_name] = Contender(contender_name, fn, setup, reference, doc)
            return fn

        return register(function) if function is not None else register

    def command(
        self,
        name: str,
        argv: list[str] | str,
        *,
        input: str = "path",
        shell: bool = False,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        ok_status: tuple[int, ...] = (0,),
        output_files: tuple[str, ...] = (),
        inner: InnerMetric | None = None,
        build: Callable[[], str] | None = None,
        reference: bool = False,
        description: str = "",
    ) -> None:
        """Declare a contender that is a program (perflab.bench.commands): ``argv`` runs without a shell
        (a string with ``shell=True``); ``input``: the case input as "path" (``{input}`` in argv,
        else appended), "stdin", "arg" or "none". Its output is its exit status, standard output
        and ``output_files`` (relative to ``cwd``, deleted before each checked run), compared with
        ``compare=`` ("exact", "json", "lines", a function).
        ``build``: makes the program (perflab.bench.native_build) and returns its path, put before argv."""
        from perflab.bench.commands import Command, CommandSetup, program_comparator

        if any(not _is_command(c.function) for c in self.contenders.values()):
            raise BenchmarkFileError(f"command {name!r}: a benchmark's contenders are all commands or all functions")
        declared = Command(
            argv if isinstance(argv, str) else tuple(argv),
            input=input,
            shell=shell,
            env=dict(env or {}),
            cwd=cwd,
            ok_status=tuple(ok_status),
            output_files=tuple(output_files),
            inner=inner,
            build=build,
        )
        self.fuzz = False  # generated Python values are not program inputs
        self.comparator = program_comparator(self.compare)
        self.contender(CommandSetup(declared), name=name, setup=True, reference=reference, description=description)

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


def _is_command(function: Callable) -> bool:
    """Whether ``function`` is a command contender's setup (perflab.bench.commands.CommandSetup).
    Only ``Benchmark.command`` makes one, after importing that module: a benchmark of Python
    functions never imports it, nor the subprocess machinery it brings (a worker's start-up)."""
    commands = sys.modules.get("perflab.bench.commands")
    return commands is not None and isinstance(function, commands.CommandSetup)


def _check_new_name(existing: dict, name: str, kind: str) -> None:
    if name in existing:
        raise BenchmarkFileError(f"{kind} {name!r} is declared twice")
