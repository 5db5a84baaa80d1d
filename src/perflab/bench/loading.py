"""Loading a benchmark file: import it (or run it, for a pyperf script; or discover an asv
benchmark directory) and find its one ``Benchmark``; every failure of the user's code becomes a
``BenchmarkFileError`` naming the file.

Standard library only: worker processes load benchmark files under the measured interpreter.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable

from perflab.bench.neighbours import importable_neighbours
from perflab.bench.spec import Benchmark, BenchmarkFileError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any


def load_benchmark(path: str | os.PathLike[str]) -> Benchmark:
    """Import a benchmark file and return the one ``Benchmark`` it declares.

    The file's directory goes first on ``sys.path`` so that it can import its neighbours (unless
    the job put it there, behind a revision's code).
    Every failure becomes a ``BenchmarkFileError`` whose message names the file.
    """
    path = os.path.realpath(path)
    # The asv and pyperf loaders are imported for their files only: every worker loads a benchmark
    # file, and importing both was a fifth of a worker's start-up (instructions, counted by callgrind).
    # For the same reason this module uses os.path, not pathlib (and urllib, ipaddress... with it).
    if os.path.isdir(path):  # an asv benchmark directory
        from pathlib import Path

        from perflab.bench import asv_suite

        return _run_user_code(path, "importing the asv suite", lambda: asv_suite.load(Path(path)))
    if not os.path.isfile(path):
        raise BenchmarkFileError(f"{path}: no such benchmark file")
    target = pyperf_target(path)
    if target is not None:
        from perflab.bench import pyperf_script

        return _run_user_code(path, "running the pyperf script", lambda: pyperf_script.load(*target))
    name = module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BenchmarkFileError(f"{path}: not a Python file")
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    importable_neighbours(os.path.dirname(path))
    sys.modules[name] = module
    _run_user_code(path, "importing", lambda: loader.exec_module(module))
    # One Benchmark under two names (``b = a``) is still one.
    found = list({id(value): value for value in vars(module).values() if isinstance(value, Benchmark)}.values())
    if len(found) != 1:
        raise BenchmarkFileError(
            f"{path}: expected exactly one perflab.Benchmark, found {len(found)}" + _pytest_hint(module, path)
        )
    benchmark = found[0]
    if not benchmark.cases:
        raise BenchmarkFileError(f"{path}: benchmark {benchmark.name!r} declares no case")
    if not benchmark.contenders:
        raise BenchmarkFileError(f"{path}: benchmark {benchmark.name!r} declares no contender")
    return benchmark


def _pytest_hint(module: Any, path: str) -> str:
    """How to run a pytest test file that uses the ``benchmark`` fixture (pytest-benchmark's or
    perflab's plugin), which is not a benchmark file; "" for anything else."""
    functions = [value for name, value in vars(module).items() if name.startswith("test") and callable(value)]
    for value in list(functions):
        if isinstance(value, type):  # a test class: its test methods
            functions += [method for name, method in vars(value).items() if name.startswith("test")]
    codes = [code for code in (getattr(f, "__code__", None) for f in functions) if code is not None]
    if not any("benchmark" in code.co_varnames[: code.co_argcount] for code in codes):
        return ""
    return (
        f"; it is a pytest file with benchmark tests: run `pytest --perflab {path}` (across revisions, "
        f"paired as --rev does: `pytest --perflab {path} --perflab-rev A --perflab-rev B`)"
    )


def run_on_case(path: str, case: str, job: Callable[[], None]) -> None:
    """Run ``job``, a worker's job on ``case`` of the benchmark at ``path``: for a pyperf script,
    inside the script's call that asks to time ``case`` (perflab.bench.pyperf_script.serve), where
    pyperf times it; for any other benchmark, as it is."""
    path = os.path.realpath(path)
    target = pyperf_target(path) if os.path.isfile(path) else None
    if target is None:
        job()
        return
    from perflab.bench import pyperf_script

    failure = _run_user_code(path, "running the pyperf script", lambda: pyperf_script.serve(*target, case, job))
    if failure is not None:
        raise failure


def pyperf_target(path: str) -> tuple[str, tuple[str, ...], str | None] | None:
    """How to run the pyperf script at ``path`` (the script, its options, the benchmark's name), or
    None when ``path`` is not one: a pyperf script, or a pyperformance benchmark's metadata file
    (perflab.bench.pyperformance_metafile: the script it names, with its options)."""
    if path.endswith(".toml"):
        from perflab.bench import pyperformance_metafile

        if pyperformance_metafile.is_metafile(path):
            described = _run_user_code(
                path, "reading pyperformance's metadata", lambda: pyperformance_metafile.read(path)
            )
            return described.runscript, described.extra_opts, described.name
    if is_pyperf_script(path):
        return path, (), None
    return None


def is_pyperf_script(path: str | os.PathLike[str]) -> bool:
    """The file imports pyperf and not perflab (a perflab file may import pyperf for its own reasons)."""
    try:
        with open(path, "rb") as file:
            source = file.read()
        if b"pyperf" not in source:  # most files: no parse at every worker's start
            return False
        import ast  # here: most workers never parse (a worker's start-up, see perflab.bench)

        tree = ast.parse(source, filename=os.fspath(path))
    except (SyntaxError, ValueError, OSError):
        return False
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.partition(".")[0])
    return "pyperf" in imported and "perflab" not in imported


def module_name(path: str | os.PathLike[str]) -> str:
    """The name a benchmark file is imported under (in ``sys.modules``)."""
    return f"perflab_benchmark_{os.path.splitext(os.path.basename(path))[0]}"


def _run_user_code(path: str, doing: str, run: Callable[[], Any]) -> Any:
    """``run()``, with every failure of the user's code as a BenchmarkFileError naming the file."""
    try:
        return run()
    except SyntaxError as error:
        raise BenchmarkFileError(f"{error.filename or path}:{error.lineno}: syntax error: {error.msg}") from None
    except BenchmarkFileError as error:
        raise BenchmarkFileError(error if str(error).startswith(path) else f"{path}: {error}") from None
    except KeyboardInterrupt:
        raise  # Ctrl-C while the file imports: perflab stops as it does elsewhere, not a fault of the file
    except BaseException as error:
        where = _user_line(error, path)
        raise BenchmarkFileError(
            f"{where}: {type(error).__name__} while {doing}: {error}{_hidden_build(error, path)}"
            f"{_requirements(error, path)}"
        ) from None


def _hidden_build(error: BaseException, path: str) -> str:
    """Why a package's module may be missing: the benchmark's folder, first on sys.path, holds the
    package's source folder, which hides its installed build (a compiled module is not in the source)."""
    if not isinstance(error, ModuleNotFoundError) or "." not in (error.name or ""):
        return ""
    package = (error.name or "").partition(".")[0]
    source = os.path.join(os.path.dirname(path), package)
    if not os.path.isdir(source):
        return ""
    return (
        f" ({package} was imported from {source}, its source beside the benchmark: that hides an installed build "
        "of it; keep the benchmark outside the package's import root, e.g. in benchmarks/)"
    )


def _requirements(error: BaseException, path: str) -> str:
    """What a pyperformance benchmark needs installed, as pyperformance installs it: the
    requirements.txt beside its metadata file, when a module is missing."""
    requirements = os.path.join(os.path.dirname(path), "requirements.txt")
    if not isinstance(error, ModuleNotFoundError) or not path.endswith(".toml") or not os.path.isfile(requirements):
        return ""
    return f" (pyperformance installs what this benchmark needs: pip install -r {requirements})"


def _user_line(error: BaseException, path: str) -> str:
    """'FILE:LINE' of the deepest traceback frame inside the benchmark file (or the asv benchmark
    directory), else the path alone."""
    where = str(path)
    tb = error.__traceback__
    while tb is not None:
        frame_file = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if frame_file == path or frame_file.startswith(path + os.sep):
            where = f"{frame_file}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where
