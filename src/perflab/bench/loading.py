"""Loading a benchmark file: import it (or run it, for a pyperf script) and find its one
``Benchmark``; every failure of the user's code becomes a ``BenchmarkFileError`` naming the file.

Standard library only: worker processes load benchmark files under the measured interpreter.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perflab.bench import pyperf_script
from perflab.bench.spec import Benchmark, BenchmarkFileError


def load_benchmark(path: str | Path) -> Benchmark:
    """Import a benchmark file and return the one ``Benchmark`` it declares.

    The file's directory goes first on ``sys.path`` so that it can import its neighbours.
    Every failure becomes a ``BenchmarkFileError`` whose message names the file.
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise BenchmarkFileError(f"{path}: no such benchmark file")
    if pyperf_script.is_pyperf_script(path):
        return _run_user_code(path, "running the pyperf script", lambda: pyperf_script.load(path))
    module_name = f"perflab_benchmark_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BenchmarkFileError(f"{path}: not a Python file")
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    sys.modules[module_name] = module
    _run_user_code(path, "importing", lambda: loader.exec_module(module))
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


def _run_user_code(path: Path, doing: str, run: Callable[[], Any]) -> Any:
    """``run()``, with every failure of the user's code as a BenchmarkFileError naming the file."""
    try:
        return run()
    except SyntaxError as error:
        raise BenchmarkFileError(f"{path}:{error.lineno}: syntax error: {error.msg}") from None
    except BenchmarkFileError as error:
        raise BenchmarkFileError(error if str(error).startswith(str(path)) else f"{path}: {error}") from None
    except BaseException as error:
        line = _user_line(error, path)
        raise BenchmarkFileError(f"{path}{line}: {type(error).__name__} while {doing}: {error}") from None


def _user_line(error: BaseException, path: Path) -> str:
    """':LINE' of the deepest traceback frame inside the benchmark file, or ''."""
    line = ""
    tb = error.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path:
            line = f":{tb.tb_lineno}"
        tb = tb.tb_next
    return line
