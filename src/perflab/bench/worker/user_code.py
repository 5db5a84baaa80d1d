"""Calling the benchmark's code inside a worker: its cases' inputs and its contenders, with any
exception they raise turned into a ``UserCodeError`` that says whose code it was and where.
Standard library only."""

from __future__ import annotations

import os
import traceback

from perflab.bench.loading import load_benchmark
from perflab.bench.optional import Skipped, missing_dependency
from perflab.bench.spec import Benchmark, Case, Contender
from perflab.bench.worker import integrity

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any


class UserCodeError(Exception):
    """User code (a case builder, the reference or a contender) raised; carries where."""

    def __init__(self, role: str, name: str, error: Exception, path: str):
        self.role, self.name, self.error = role, name, error
        # A program's failure (perflab.bench.commands) is not at a line of Python.
        self.location = None if getattr(error, "without_location", False) else location_in(error, path)
        self.missing = missing_dependency(error)  # a declared optional dependency not installed here
        self.skipped = str(error) if isinstance(error, Skipped) else None  # the benchmark skips this case
        super().__init__(f"{role} {name!r} raised {type(error).__name__}: {error}")


def location_in(error: BaseException, path: str) -> str | None:
    """'file:line' of the deepest frame in the benchmark file, else of the deepest frame."""
    frames = traceback.extract_tb(error.__traceback__)
    in_file = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(path)]
    deepest = (in_file or frames)[-1:]
    return f"{deepest[0].filename}:{deepest[0].lineno}" if deepest else None


def load_case(path: str, case_name: str) -> tuple[Benchmark, Case, Any]:
    """The benchmark, the case and its input (built here, outside any timed region)."""
    benchmark = load_benchmark(path)
    case = benchmark.cases[case_name]
    return benchmark, case, build_input(case, path)


def build_input(case: Case, path: str) -> Any:
    try:
        return case.build()
    except Exception as error:
        raise UserCodeError("case", case.name, error, path) from error


def call(contender: Contender, argument: Any, path: str, role: str) -> Any:
    try:
        return contender.build()(argument)
    except Exception as error:
        raise UserCodeError(role, contender.name, error, path) from error


def fresh_input(case: Case, argument: Any, path: str) -> Any:
    """A copy of the case input that no other call has seen (built again if it cannot be copied)."""
    try:
        return integrity.snapshot(argument)
    except Exception:
        return build_input(case, path)
