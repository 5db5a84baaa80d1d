"""Small compiled projects in throwaway git repositories, for the tests of built revisions
(perflab.measure.builds): each with a fast first commit and a slower second one."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from support.git_repos import git_repository

SPIN_ARGUMENT = 2000  # the benchmark's one case: spin(2000)


def uv_on_path() -> str:
    """PATH with this environment's scripts first, uv's among them (a test requirement): perflab
    builds with uv when it is on PATH (a fraction of pip's cost per build), and CI's activated
    venv has it there; a run of the tests without activating it gets the same."""
    return f"{sysconfig.get_path('scripts')}{os.pathsep}{os.environ.get('PATH', '')}"


# The benchmark sits in benchmarks/, outside the project's import root, so the worker imports the
# installed (built) module, not the source folder.
BENCH = """
import perflab
import {module}

bench = perflab.Benchmark("spin")

@bench.case
def K():
    return {argument}

@bench.contender
def spin(n):
    return {module}.spin(n)
"""

# volatile: the compiler keeps every round of the loop, so `rounds` sets the cost; EXTRA more
# iterations of the same loop, whose result is dropped, add a small cost (benchmarks/compiled_power.py).
C_SOURCE = """
#include <Python.h>

static PyObject *spin(PyObject *self, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    volatile long total = 0, dropped = 0;
    for (long round = 0; round < ROUNDS; round++)
        for (long i = 0; i < n; i++) total += i % 7;
    for (long i = 0; i < EXTRA; i++) dropped += i % 7;
    return PyLong_FromLong(total / ROUNDS);
}

static PyMethodDef methods[] = {{"spin", spin, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cspin", NULL, -1, methods};
PyMODINIT_FUNC PyInit_cspin(void) { return PyModule_Create(&module); }
"""

SETUPTOOLS_PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "cspin"
version = "0.1"
"""

SETUP_PY = 'from setuptools import Extension, setup\n\nsetup(ext_modules=[Extension("cspin", ["cspin.c"])])\n'


CYTHON_SOURCE = """
def spin(long n):
    cdef long total = 0, i, round
    for round in range(ROUNDS):
        for i in range(n):
            total += (i + 7 * round) % 7  # each round adds the same (and no compiler hoists it)
    return total // ROUNDS
"""

CYTHON_PYPROJECT = SETUPTOOLS_PYPROJECT.replace('"setuptools>=61"', '"setuptools>=61", "Cython>=3"').replace(
    "cspin", "cyspin"
)

CYTHON_SETUP_PY = (
    'from Cython.Build import cythonize\nfrom setuptools import setup\n\nsetup(ext_modules=cythonize("cyspin.pyx"))\n'
)

RUST_SOURCE = """
use pyo3::prelude::*;

#[pyfunction]
fn spin(n: i64) -> i64 {
    let mut total: i64 = 0;
    for round in 0..ROUNDS {
        for i in 0..n {
            total = std::hint::black_box(total + (i + 7 * round) % 7);
        }
    }
    total / ROUNDS
}

#[pymodule]
fn rspin(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(spin, m)?)
}
"""

CARGO_TOML = """
[package]
name = "rspin"
version = "0.1.0"
edition = "2021"

[lib]
crate-type = ["cdylib"]

[dependencies]
pyo3 = { version = "0.22", features = ["extension-module", "abi3-py38"] }

# maturin builds the release profile; unoptimised, PyO3 compiles in two thirds of the CPU time,
# and the loop (each round kept by black_box) still costs as many times more as it has rounds.
[profile.release]
opt-level = 0
"""

MATURIN_PYPROJECT = (
    SETUPTOOLS_PYPROJECT.replace('"setuptools>=61"', '"maturin>=1.5,<2"')
    .replace('"setuptools.build_meta"', '"maturin"')
    .replace("cspin", "rspin")
)


def c_extension_repository(path: Path, rounds: tuple[int, ...] = (1, 3), extra: tuple[int, ...] = ()) -> Path:
    """A setuptools C extension ``cspin`` whose commits loop ``rounds`` times each (the first
    fast, the next slower by that factor; 0: a commit that does not compile), plus ``extra``
    iterations each (default none); the benchmark in benchmarks/bench.py. Every commit has a
    source tree of its own (no two share a build)."""
    sources = iter([_c_source(count, more) for count, more in zip(rounds, extra or (0,) * len(rounds))])
    return _repository(
        path,
        "cspin",
        {"pyproject.toml": SETUPTOOLS_PYPROJECT, "setup.py": SETUP_PY},
        lambda count: {"cspin.c": next(sources)},  # called once per commit, in order
        rounds,
    )


def _c_source(rounds: int, extra: int) -> str:
    defines = f"#define ROUNDS {rounds or 1}\n#define EXTRA {extra}\n"
    if rounds == 0:
        return defines + C_SOURCE.replace("total += i % 7;", "total += i % 7")
    return defines + C_SOURCE


def cython_repository(path: Path, rounds: tuple[int, ...] = (1, 3)) -> Path:
    """As ``c_extension_repository``, a Cython module ``cyspin`` (Cython from PyPI at build time)."""
    return _repository(
        path,
        "cyspin",
        {"pyproject.toml": CYTHON_PYPROJECT, "setup.py": CYTHON_SETUP_PY},
        lambda count: {"cyspin.pyx": CYTHON_SOURCE.replace("ROUNDS", str(count))},
        rounds,
    )


def rust_repository(path: Path, rounds: tuple[int, ...] = (1, 3)) -> Path:
    """As ``c_extension_repository``, a PyO3 crate ``rspin`` built by maturin (pyo3 from crates.io)."""
    return _repository(
        path,
        "rspin",
        {"pyproject.toml": MATURIN_PYPROJECT, "Cargo.toml": CARGO_TOML},
        lambda count: {"src/lib.rs": RUST_SOURCE.replace("ROUNDS", str(count))},
        rounds,
    )


def _repository(path: Path, module: str, fixed: dict[str, str], varying, rounds: tuple[int, ...]) -> Path:
    git = git_repository(path)
    for name, text in {"benchmarks/bench.py": BENCH.format(module=module, argument=SPIN_ARGUMENT), **fixed}.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    for number, count in enumerate(rounds):
        for name, text in varying(count).items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text)
        (path / "VERSION").write_text(f"{number}\n")
        git("add", "-A")
        git("commit", "-qm", f"{count} rounds")
    return path
