"""Small compiled projects in throwaway git repositories, for the tests of built revisions
(perflab.measure.builds): each with a fast first commit and a slower second one."""

from __future__ import annotations

from pathlib import Path

from support.git_repos import git_repository

# The benchmark sits in benchmarks/, outside the project's import root, so the worker imports the
# installed (built) module, not the source folder.
BENCH = """
import perflab
import {module}

bench = perflab.Benchmark("spin")

@bench.case
def K():
    return 2000

@bench.contender
def spin(n):
    return {module}.spin(n)
"""

# volatile: the compiler keeps every round of the loop, so `rounds` sets the cost.
C_SOURCE = """
#include <Python.h>

static PyObject *spin(PyObject *self, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    volatile long total = 0;
    for (long round = 0; round < ROUNDS; round++)
        for (long i = 0; i < n; i++) total += i % 7;
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


def c_extension_repository(path: Path, rounds: tuple[int, ...] = (1, 3)) -> Path:
    """A setuptools C extension ``cspin`` whose commits loop ``rounds`` times each (the first
    fast, the next slower by that factor); the benchmark in benchmarks/bench.py."""
    git = git_repository(path)
    (path / "benchmarks").mkdir()
    (path / "benchmarks" / "bench.py").write_text(BENCH.format(module="cspin"))
    (path / "pyproject.toml").write_text(SETUPTOOLS_PYPROJECT)
    (path / "setup.py").write_text(SETUP_PY)
    for count in rounds:
        (path / "cspin.c").write_text(f"#define ROUNDS {count}\n" + C_SOURCE)
        git("add", "-A")
        git("commit", "-qm", f"{count} rounds")
    return path
