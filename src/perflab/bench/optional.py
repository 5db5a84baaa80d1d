"""Optional dependencies: which failures of a contender mean "not installed here" (a skip) and
which are errors in the benchmark.

A benchmark file declares a dependency optional by importing it in the *set-up* of a
``setup=True`` contender (the function that runs once per worker and returns the function to
time)::

    @bench.contender(setup=True)
    def orjson():
        import orjson              # not installed here: "skipped: not installed"
        return orjson.dumps

Only a ``ModuleNotFoundError`` raised while that set-up runs, for a module whose *top-level*
package cannot be found under the measured interpreter, is a skip. Everything else is an error
with its file:line, because it is a mistake that would otherwise make a benchmark vanish:
``from json import dumpz`` (an ImportError, the module exists), ``import json.nope`` (the
top-level package is there), an import inside the timed function or at the top of the benchmark
file (not declared optional), ``from __main__ import X`` that finds no X.

Set-ups that build a program (``perflab.bench.native_build``) declare their toolchain the same way:
a missing compiler raises ``NotInstalled`` in the set-up, and the contender is skipped. The
built-in case studies follow these rules; their optional modules are the ``perflab[cases]`` extra.

Runs in worker processes: standard library only.
"""

from __future__ import annotations

import importlib.util
from types import TracebackType

from perflab.bench.spec import Contender


class NotInstalled(Exception):
    """A program a contender's set-up needs (a compiler) is not installed here."""


class Skipped(Exception):
    """The benchmark itself declares that a case does not apply here: an asv benchmark's setup
    raised NotImplementedError, or its parameters are in ``skip_params`` (perflab.bench.asv_suite)."""


def missing_dependency(error: BaseException) -> str | None:
    """What is not installed, when ``error`` is a declared optional dependency missing; else None."""
    if not _raised_in_setup(error.__traceback__):
        return None
    if isinstance(error, NotInstalled):
        return str(error)
    if isinstance(error, ModuleNotFoundError) and error.name:
        top_level = error.name.partition(".")[0]
        return top_level if not _importable(top_level) else None
    return None


def _raised_in_setup(traceback: TracebackType | None) -> bool:
    """Whether the traceback passes through ``Contender.build``: only a set-up runs in there (the
    function it returns is called, and timed, outside)."""
    while traceback is not None:
        if traceback.tb_frame.f_code is Contender.build.__code__:
            return True
        traceback = traceback.tb_next
    return False


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or half-initialised package is not importable
        return False
