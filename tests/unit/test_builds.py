"""A revision's environment, in process: which projects compile, the working tree's hash, what a
failed build's log is reduced to, what --build/--build-command accept, and the cache's pruning
(the builds themselves: tests/external/test_builds.py)."""

import argparse
import json
import os
import subprocess

import pytest
from rich.console import Console
from support.git_repos import git_repository

from perflab import git
from perflab.cli.support.options import UsageError, build_choice
from perflab.measure import builds
from perflab.measure.worktrees import RevisionError
from perflab.option_types import size
from perflab.render.terminal import cache as cache_terminal

PURE = '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'


@pytest.mark.parametrize(
    "files, compiles",
    [
        ({"pyproject.toml": PURE}, False),
        ({"pyproject.toml": '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'}, False),
        ({"pyproject.toml": '[build-system]\nrequires = ["maturin>=1,<2"]\nbuild-backend = "maturin"\n'}, True),
        ({"pyproject.toml": '[build-system]\nrequires = ["meson-python"]\nbuild-backend = "mesonpy"\n'}, True),
        ({"pyproject.toml": '[build-system]\nrequires = ["scikit_build_core"]\nbuild-backend = "x"\n'}, True),
        ({"pyproject.toml": '[build-system]\nrequires = ["setuptools", "Cython>=3"]\n'}, True),
        ({"pyproject.toml": PURE + '[[tool.setuptools.ext-modules]]\nname = "m"\nsources = ["m.c"]\n'}, True),
        ({"pyproject.toml": PURE, "setup.py": "from setuptools import setup\nsetup()\n"}, False),
        ({"setup.py": "from setuptools import Extension, setup\nsetup(ext_modules=[Extension('m', ['m.c'])])"}, True),
        ({"setup.py": "from Cython.Build import cythonize\nsetup(ext_modules=cythonize('m.pyx'))"}, True),
        ({}, False),
    ],
)
def test_which_projects_compile(tmp_path, files, compiles):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert builds.compiles(tmp_path) is compiles


def test_a_broken_pyproject_is_named(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[build-system\n")
    with pytest.raises(RevisionError, match="pyproject.toml: not valid TOML"):
        builds.compiles(tmp_path)


def test_the_working_tree_hash_sees_uncommitted_files_and_leaves_the_index_alone(tmp_path):
    run = git_repository(tmp_path)
    (tmp_path / "a.py").write_text("a = 1\n")
    run("add", "-A")
    run("commit", "-qm", "one")
    head = git.tree(tmp_path, "HEAD")
    assert git.working_tree(tmp_path) == head  # a clean tree is HEAD's: they share a build
    (tmp_path / ".perflab").mkdir()
    (tmp_path / ".perflab" / "perflab.db").write_text("runs")  # perflab's store: changed by every run
    assert git.working_tree(tmp_path) == head
    (tmp_path / "new.c").write_text("int x;\n")  # untracked, not ignored
    changed = git.working_tree(tmp_path)
    assert changed != head
    status = subprocess.run(["git", "-C", tmp_path, "status", "--porcelain"], capture_output=True, text=True).stdout
    assert status == "?? .perflab/\n?? new.c\n"  # still untracked: the user's index was not touched
    (tmp_path / ".gitignore").write_text("new.c\n")
    (tmp_path / "a.py").write_text("a = 2\n")
    assert git.working_tree(tmp_path) not in (head, changed)
    exported = tmp_path / "exported"
    git.export_tree(tmp_path, git.working_tree(tmp_path), exported)
    assert (exported / "a.py").read_text() == "a = 2\n" and not (exported / "new.c").exists()


def test_an_earlier_builds_outputs_in_the_working_tree_are_not_built_again(tmp_path):
    """`pip install .` left build/ (objects compiled from another revision's source) untracked in a
    repository without a .gitignore: exported with the working tree (every file as new as the next),
    setuptools linked the stale objects and WORKTREE measured the other revision's code."""
    run = git_repository(tmp_path)
    (tmp_path / "fast.c").write_text("int x;\n")
    run("add", "-A")
    run("commit", "-qm", "one")
    head = git.tree(tmp_path, "HEAD")
    for name in ("build/temp/fast.o", "build/lib/fast.so", "fast.cpython-311.so", "fast.egg-info/PKG-INFO"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("stale")
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_text("stale")
    assert git.working_tree(tmp_path) == head  # nothing of it is the project's source
    (tmp_path / "fast.c").write_text("int y;\n")
    exported = tmp_path / "exported"
    git.export_tree(tmp_path, git.working_tree(tmp_path), exported)
    assert sorted(p.relative_to(exported).as_posix() for p in exported.rglob("*")) == ["fast.c"]


def test_a_failed_build_is_said_by_its_cause(tmp_path):
    log = tmp_path / "build.log"
    log.write_text(
        "$ python -m pip install --no-build-isolation .\n"
        "  Building wheel for cspin (pyproject.toml): finished with status 'error'\n"
        "  error: subprocess-exited-with-error\n"
        "      cspin.c:5:5: error: expected ';' before 'return'\n"
        "      error: command '/usr/bin/gcc' failed with exit code 1\n"
        "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
        "error: failed-wheel-build-for-install\n"
    )
    assert builds.cause(log) == "cspin.c:5:5: error: expected ';' before 'return'"
    log.write_text(
        "Error compiling Cython file:\n    x = undefined_name\n        ^\nfast.pyx:3:8: undeclared name not builtin: "
        "undefined_name\nerror: metadata-generation-failed\n"
    )
    assert builds.cause(log) == "fast.pyx:3:8: undeclared name not builtin: undefined_name"
    log.write_text("   Compiling spin v0.1.0\nerror[E0308]: mismatched types\nerror: could not compile `spin`\n")
    assert builds.cause(log) == "error[E0308]: mismatched types"
    log.write_text(  # a source file setup.py names is missing: uv's summary comes first, then gcc's words
        "error: Failed to build `fastsum @ file:///tmp/source`\n  cause: The build backend returned an error\n"
        "         cc1: fatal error: src/missing.c: No such file or directory\n         compilation terminated.\n"
    )
    assert builds.cause(log) == "cc1: fatal error: src/missing.c: No such file or directory"
    log.write_text("x86_64-linux-gnu-gcc: error: src/gone.c: No such file or directory\nerror: command failed\n")
    assert builds.cause(log) == "x86_64-linux-gnu-gcc: error: src/gone.c: No such file or directory"
    log.write_text("$ uv venv /x/venv\nUsing CPython 3.11.7\n$ false\n")  # a command that says nothing
    assert builds.cause(log) == "(no output)"
    log.write_text("$ make\nmake: *** No targets.  Stop.\n")
    assert builds.cause(log) == "make: *** No targets.  Stop."


@pytest.mark.parametrize(
    "build, command, spread, message",
    [
        (None, "  ", False, "--build-command: empty"),
        (False, "make", False, "--build-command with --no-build"),
        (False, None, True, "--build-spread with --no-build"),
    ],
)
def test_build_options_that_contradict_are_refused(build, command, spread, message):
    with pytest.raises(UsageError, match=message):
        build_choice(argparse.Namespace(build=build, build_command=command, build_spread=spread), err=None)


def test_the_default_command_is_uv_only_where_uv_is_installed(monkeypatch):
    monkeypatch.setattr(builds.shutil, "which", lambda name: None)
    assert builds.Choice().install_command() == builds.DEFAULT_COMMAND
    monkeypatch.setattr(builds.shutil, "which", lambda name: "/usr/bin/uv")
    assert builds.Choice().install_command() == builds.UV_COMMAND
    assert builds.Choice(command="make install").install_command() == "make install"


def _entry(cache, name: str, size: int, used: float) -> None:
    """A complete build as the cache holds one: a folder with its record, ``size`` bytes of files."""
    folder = cache / "builds" / name
    (folder / "venv").mkdir(parents=True)
    (folder / "venv" / "lib.so").write_bytes(b"x" * size)
    (folder / builds.COMPLETE).write_text(json.dumps({"revision": name, "command": "c", "build_seconds": 1.0}))
    os.utime(folder / builds.COMPLETE, (used, used))


def test_the_cache_loses_its_least_recently_used_builds_first(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path))
    for name, used in (("old", 1000.0), ("newest", 3000.0), ("middle", 2000.0)):
        _entry(tmp_path, name, 10_000, used)
    (tmp_path / "builds" / "unfinished").mkdir()  # no record: a build killed half-way is not listed
    assert [entry.record["revision"] for entry in builds.entries()] == ["newest", "middle", "old"]
    removed = builds.prune(25_000)
    assert [entry.record["revision"] for entry in removed] == ["old"]
    assert builds.prune(0, keep=tmp_path / "builds" / "newest")[0].record["revision"] == "middle"
    assert [entry.record["revision"] for entry in builds.entries()] == ["newest"]


def test_failed_builds_count_against_the_size_and_go_first(tmp_path, monkeypatch):
    """A failed build leaves its log and a part-made environment (24 MB for a pip venv): neither
    listed nor pruned, so `perflab cache --prune` said "0 B" and left them on disk."""
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path))
    _entry(tmp_path, "built", 10_000, 2000.0)
    broken = tmp_path / "builds" / "broken"
    (broken / "venv").mkdir(parents=True)
    (broken / "venv" / "python").write_bytes(b"x" * 5_000)
    (broken / builds.LOG).write_text("cc1: fatal error: src/x.c: No such file or directory\n")
    (tmp_path / "builds" / "cargo-target").mkdir()  # Rust's shared target folder: no build of its own
    assert [entry.folder.name for entry in builds.failed()] == ["broken"]
    console = Console(record=True, width=200)
    cache_terminal.render(builds.entries(), builds.failed(), builds.cache_folder(), 2**30, console)
    assert "1 build and 1 failed build (kept for the build log), 14.8 KiB of 1 GiB" in console.export_text()
    assert [entry.folder.name for entry in builds.prune(12_000)] == ["broken"]  # the failed one first
    assert [entry.folder.name for entry in builds.prune(0)] == ["built"]
    assert sorted(path.name for path in (tmp_path / "builds").iterdir() if path.is_dir()) == ["cargo-target"]


@pytest.mark.parametrize("text, expected", [("0", 0), ("512", 512), ("500M", 500 * 2**20), ("1.5GiB", 3 * 2**29)])
def test_sizes(text, expected):
    assert size(text) == expected


def test_a_bad_cache_size_is_named(monkeypatch):
    monkeypatch.setenv(builds.LIMIT_VARIABLE, "lots")
    with pytest.raises(RevisionError, match="PERFLAB_BUILD_CACHE_SIZE: 'lots' is not a size"):
        builds.limit()
