"""A revision's environment: a project that compiles (C, Cython or Rust extensions) cannot run
from its source tree, so that revision is built and installed into a virtual environment of its
own, and its side's worker runs under that environment's python. A built side is a side like any
other (measure/sides.py): measured interleaved and paired with the others.

Environments are cached in ``builds/<key>`` under perflab's cache folder (``$PERFLAB_CACHE``,
else ``$XDG_CACHE_HOME/perflab``, else ``~/.cache/perflab``). The key is the revision's source
tree (git's tree hash: a branch, its commit and an identical working tree share one), the
interpreter and the build command, so a source is never built twice for the same interpreter
and command (and, for the second build of a revision that measures the build-to-build spread,
its replica number). An entry is complete once its ``perflab-build.json`` is written; anything else
there (a build killed half-way, one that failed) is built again next time. After a new build the
cache is pruned to ``$PERFLAB_BUILD_CACHE_SIZE``, least recently used first (``perflab cache``
lists and prunes it by hand).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from perflab import git, option_types
from perflab.measure import metadata
from perflab.measure.worktrees import CURRENT, RevisionError

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# The install that builds the project with the build tools already in the environment (put there
# first from its [build-system] requires): no isolated build environment to make per build.
DEFAULT_COMMAND = "python -m pip install --no-build-isolation ."
UV_COMMAND = "uv pip install --no-build-isolation ."
COMPLETE = "perflab-build.json"  # written last: the entry is whole
LIMIT_VARIABLE = "PERFLAB_BUILD_CACHE_SIZE"
DEFAULT_LIMIT = "10G"  # the cache's size after a new build: least recently used builds go first
LOG = "build.log"

# What says that a project compiles: its build backend, a build requirement, or setup.py's words.
_COMPILING_BACKENDS = {"mesonpy", "scikit_build_core.build", "maturin"}
_COMPILING_REQUIREMENTS = {
    "cython",
    "maturin",
    "meson-python",
    "scikit-build-core",
    "setuptools-rust",
    "pybind11",
    "nanobind",
}
_SETUP_PY_WORDS = ("ext_modules", "Extension(", "cythonize(")
_LEGACY_REQUIREMENTS = ["setuptools>=40.8.0"]  # PEP 517's default for a project without [build-system]


class BuildFailed(RevisionError):
    """A revision's project did not build: one line, its log's last line and the log's path."""

    def __init__(self, message: str, revision: str) -> None:
        super().__init__(message)
        self.revision = revision


@dataclass(frozen=True)
class Choice:
    """What ``--build/--no-build`` and ``--build-command`` ask for."""

    build: bool | None = None  # None: build the revisions whose project compiles
    command: str | None = None  # None: DEFAULT_COMMAND, or UV_COMMAND when uv is installed
    # Also build the base revision a second time and measure the two builds A/A (build_noise.py).
    spread: bool = False
    on_progress: Callable[[str], None] | None = None

    def wanted(self, source: Path) -> bool:
        return self.build if self.build is not None else compiles(source)

    def install_command(self) -> str:
        return self.command or (UV_COMMAND if shutil.which("uv") else DEFAULT_COMMAND)


@dataclass
class Environment:
    """A built revision: the environment's python, and what it was built from and how."""

    python: str
    folder: Path
    tree: str
    command: str
    seconds: float  # how long its build took
    cached: bool  # built by an earlier run
    replica: int = 0  # 0: the revision's build; 1: its second build (build_noise.py)

    @property
    def site_packages(self) -> Path:
        """Where the build is installed: imported first, so that the project's source in the
        benchmark's folder or the current directory cannot hide the build."""
        return next((self.folder / "venv" / "lib").glob("python*/site-packages"))

    def to_json(self) -> dict:
        return {
            "tree": self.tree,
            "command": self.command,
            "environment": str(self.folder),
            "build_seconds": round(self.seconds, 3),
            "cached": self.cached,
            **({"replica": self.replica} if self.replica else {}),
        }


@dataclass
class Entry:
    """One environment in the cache, complete (``perflab cache`` lists them)."""

    folder: Path
    record: dict  # what its perflab-build.json says: revision, tree, command, python, times
    size: int  # bytes on disk
    used: float  # when a run last used it (seconds since the epoch)


def cache_folder() -> Path:
    base = (
        os.environ.get("PERFLAB_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "perflab"
    )
    return Path(base) / "builds"


def limit() -> int:
    """The cache's size limit in bytes: ``$PERFLAB_BUILD_CACHE_SIZE`` (e.g. 2G), else DEFAULT_LIMIT."""
    text = os.environ.get(LIMIT_VARIABLE) or DEFAULT_LIMIT
    try:
        return option_types.size(text)
    except argparse.ArgumentTypeError as error:
        raise RevisionError(f"{LIMIT_VARIABLE}: {error}") from None


def entries() -> list[Entry]:
    """The complete builds in the cache, the most recently used first."""
    found = []
    for marker in cache_folder().glob(f"*/{COMPLETE}"):
        with contextlib.suppress(OSError, ValueError):  # removed meanwhile, or half-written
            found.append(
                Entry(marker.parent, json.loads(marker.read_text()), _size(marker.parent), marker.stat().st_mtime)
            )
    return sorted(found, key=lambda entry: entry.used, reverse=True)


def failed() -> list[Entry]:
    """What builds that failed (or were killed) left: their log and a part-made environment, kept
    for the log until the cache needs the room; the oldest first."""
    found = []
    for log in cache_folder().glob(f"*/{LOG}"):
        if not (log.parent / COMPLETE).exists():
            with contextlib.suppress(OSError):  # removed meanwhile
                found.append(Entry(log.parent, {}, _size(log.parent), log.stat().st_mtime))
    return sorted(found, key=lambda entry: entry.used)


def prune(size_limit: int, keep: Path | None = None) -> list[Entry]:
    """Remove failed builds, then the least recently used builds, until the cache holds at most
    ``size_limit`` bytes (never ``keep``); the ones removed."""
    removed, complete, leftovers = [], entries(), failed()
    total = sum(entry.size for entry in complete + leftovers)
    for entry in leftovers + complete[::-1]:
        if total <= size_limit:
            break
        if entry.folder == keep:
            continue
        with _locked(entry.folder):  # not while a run is using or building it
            gone = bool(entry.record) or not (entry.folder / COMPLETE).exists()  # a failed one may be rebuilt by now
            if gone:
                shutil.rmtree(entry.folder, ignore_errors=True)
        if gone:
            removed.append(entry)
            total -= entry.size
    return removed


def _size(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*") if not path.is_dir() or path.is_symlink())


def compiles(source: Path) -> bool:
    """Whether the project at ``source`` has a build that compiles (detection for ``--build``'s default)."""
    system = _pyproject(source).get("build-system", {})
    if system.get("build-backend") in _COMPILING_BACKENDS:
        return True
    if any(_requirement_name(requirement) in _COMPILING_REQUIREMENTS for requirement in system.get("requires", [])):
        return True
    if "ext-modules" in _pyproject(source).get("tool", {}).get("setuptools", {}):
        return True
    setup = source / "setup.py"
    return setup.is_file() and any(word in setup.read_text(errors="replace") for word in _SETUP_PY_WORDS)


def environment(repository: Path, revision: str, python: str, choice: Choice, replica: int = 0) -> Environment:
    """The environment of ``revision`` (or of the working tree, CURRENT) built for ``python``
    with the choice's command: from the cache, else built now. ``replica`` 1: a second build of
    the same source, in an entry of its own."""
    commit = None if revision == CURRENT else _commit(repository, revision)
    tree = git.working_tree(repository) if commit is None else git.tree(repository, commit)
    command = choice.install_command()
    interpreter = metadata.interpreter_info(python)
    parts = [tree, interpreter["executable"], interpreter["version"], command]
    if replica:  # a second build of the same source: an entry of its own
        parts.append(f"replica {replica}")
    folder = cache_folder() / hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    say = choice.on_progress or (lambda message: None)
    if replica:
        revision = f"{revision} (build {replica + 1})"
    with _locked(folder):
        if (folder / COMPLETE).is_file():
            recorded = json.loads((folder / COMPLETE).read_text())
            os.utime(folder / COMPLETE)  # used now: the last to go when the cache is over its size
            say(f"{revision}: built before, environment {folder}")
            return Environment(_python_in(folder), folder, tree, command, recorded["build_seconds"], True, replica)
        say(f"{revision}: building ({command}) into {folder}")
        started = time.monotonic()
        _build(repository, tree, interpreter["executable"], command, folder, revision)
        built = Environment(_python_in(folder), folder, tree, command, time.monotonic() - started, False, replica)
        record = {
            **built.to_json(),
            **{"repository": str(repository), "revision": revision, "commit": commit},
            **{"python": interpreter["executable"], "built_at": time.time()},
        }
        (folder / COMPLETE).write_text(json.dumps(record, indent=1))
        say(f"{revision}: built in {built.seconds:.1f} s")
    for removed in prune(limit(), keep=folder):
        say(f"build cache over its size ({LIMIT_VARIABLE}): removed {removed.folder}")
    return built


def _build(repository: Path, tree: str, python: str, command: str, folder: Path, revision: str) -> None:
    """A fresh environment in ``folder``, the tree's build requirements in it, then the command
    run in the tree's files; every step's output goes to the build log."""
    shutil.rmtree(folder, ignore_errors=True)  # an incomplete entry: killed, or failed before
    folder.mkdir(parents=True)
    source = folder / "source"
    git.export_tree(repository, tree, source)
    log = folder / LOG
    venv = folder / "venv"
    uv = command.startswith("uv ")
    steps = [[*(["uv", "venv", "--python", python] if uv else [python, "-m", "venv"]), str(venv)]]
    requirements = _build_requirements(source)
    if requirements:
        # The newest versions that match, as an isolated build would install (an older setuptools
        # already in the environment cannot build a wheel without the wheel package).
        installer = (
            ["uv", "pip", "install", "--upgrade", "--python", str(venv / "bin" / "python")]
            if uv
            else [str(venv / "bin" / "python"), "-m", "pip", "install", "--upgrade"]
        )
        steps.append([*installer, *requirements])
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    environment.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    # Rust builds of every revision share one cargo target folder: crates that did not change
    # (PyO3 and the other dependencies) are compiled once, not once per revision.
    environment.setdefault("CARGO_TARGET_DIR", str(folder.parent / "cargo-target"))
    with log.open("a") as output:  # appended: each step's output lands after its "$" line
        for step in [*steps, command]:
            shown = step if isinstance(step, str) else " ".join(step)
            output.write(f"$ {shown}\n")
            output.flush()
            try:
                done = subprocess.run(
                    step,
                    shell=isinstance(step, str),
                    cwd=source,
                    env=environment,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                )
            except FileNotFoundError as error:
                output.write(f"{error}\n")
                done = subprocess.CompletedProcess(step, 127)
            if done.returncode != 0:
                output.close()
                raise BuildFailed(
                    f"revision {revision!r} does not build: `{shown}` exited with {done.returncode}: "
                    f"{cause(log)} (whole log: {log})",
                    revision,
                )


def _build_requirements(source: Path) -> list[str]:
    system = _pyproject(source).get("build-system")
    return list(system.get("requires", [])) if system else _LEGACY_REQUIREMENTS


def _pyproject(source: Path) -> dict:
    path = source / "pyproject.toml"
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RevisionError(f"{path}: not valid TOML ({error}), so whether it compiles cannot be told") from None


def _requirement_name(requirement: str) -> str:
    found = re.match(r"\s*([A-Za-z0-9._-]+)", requirement)
    return re.sub(r"[-_.]+", "-", found.group(1)).lower() if found else ""


def _commit(repository: Path, revision: str) -> str:
    commit = git.resolve_commit(repository, revision)
    if commit is None:
        raise RevisionError(f"revision {revision!r} does not exist in {repository}")
    return commit


def _python_in(folder: Path) -> str:
    return str(folder / "venv" / "bin" / "python")


# A build's log says why it failed in a compiler's words, which pip's summary lines around them
# ("error: subprocess-exited-with-error", "finished with status 'error'") do not repeat; first
# found first: C/C++ (gcc, clang; at a source line, or the driver's own, such as a missing source
# file's "cc1: fatal error: src/x.c: No such file or directory"), Cython (its "file.pyx:line:col:
# message" lines), Rust.
_CAUSES = [
    re.compile(r"^\S+:\d+(:\d+)?: (fatal )?error\b"),
    re.compile(r"^(\S*/)?[\w.-]*(gcc|g\+\+|cc1(plus)?|clang(\+\+)?|c\+\+|cc)(-[\d.]+)?: (fatal )?error: "),
    re.compile(r"^\S+\.(pyx|pxd|pxi):\d+:\d+: "),
    re.compile(r"^error(\[E\d+\])?: (?![a-z-]+$)"),
]


def cause(log: Path) -> str:
    """The log's line that says why the build failed: a compiler's first error, else its last line."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    for pattern in _CAUSES:
        found = next((line for line in lines if pattern.search(line)), None)
        if found:
            return found
    last = lines[-1] if lines else "$ "
    return "(no output)" if last.startswith("$ ") else last  # the failing step printed nothing: its "$ command" line


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One build of an entry at a time: another perflab building it waits, then finds it built."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
