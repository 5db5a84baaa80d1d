"""Building the native programs that benchmarks run (the built-in Rust and C++ case studies):
compiled once per content of their sources and cached, so that every worker process finds the
same binary without rebuilding it.

The cache is ``$PERFLAB_CACHE`` or ``~/.cache/perflab``, under ``native/<hash of the sources and
flags>``; a build goes to a temporary folder renamed into place, so that two processes building at
once never see half a binary. A missing toolchain raises ``NotInstalled``, which perflab reports as
"skipped: not installed" for the contenders whose set-up builds with it (perflab.bench.optional).

Runs in worker processes: standard library only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from perflab.bench.optional import NotInstalled

_BUILD_TIMEOUT = 900.0  # seconds: a first cargo build downloads and compiles its dependencies


class BuildFailed(Exception):
    """The compiler ran and failed; the message holds the end of its output."""


def cache_folder() -> Path:
    return Path(os.environ.get("PERFLAB_CACHE") or Path.home() / ".cache" / "perflab") / "native"


def gxx(source: Path, name: str, flags: tuple[str, ...] = ("-O2",)) -> str:
    """``source`` (one C++ file) compiled by g++ into a program named ``name``; its path."""
    compiler = _tool("g++", "a C++ compiler (g++)")
    key = _digest([source], flags)

    def build(folder: Path) -> None:
        _run([compiler, *flags, "-o", str(folder / name), str(source)], None)

    return str(_cached(key, build) / name)


def cargo(crate: Path, binary: str) -> str:
    """The release build of ``binary`` from the Cargo crate in ``crate``; its path."""
    cargo_path = _tool("cargo", "Rust's cargo")
    sources = sorted(p for p in crate.rglob("*") if p.is_file() and "target" not in p.relative_to(crate).parts)
    key = _digest(sources, ("release", binary))

    def build(folder: Path) -> None:
        target = folder / "target"
        command = [cargo_path, "build", "--release", "--quiet", "--bin", binary, "--target-dir", str(target)]
        _run(command + (["--locked"] if (crate / "Cargo.lock").exists() else []), crate)
        shutil.copy2(target / "release" / binary, folder / binary)
        shutil.rmtree(target, ignore_errors=True)

    return str(_cached(key, build) / binary)


def find_tool(name: str) -> str | None:
    """The path of a toolchain program (cargo also where rustup puts it), None when missing."""
    return shutil.which(name) or (
        str(Path.home() / ".cargo" / "bin" / name) if (Path.home() / ".cargo" / "bin" / name).exists() else None
    )


def _tool(name: str, what: str) -> str:
    found = find_tool(name)
    if found is None:
        raise NotInstalled(f"{what} is not installed: this contender is built from source")
    return found


def _digest(files: list[Path], extra: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update("\0".join(extra).encode())
    return digest.hexdigest()[:16]


def _cached(key: str, build) -> Path:
    final = cache_folder() / key
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=final.parent))
    try:
        build(scratch)
        try:
            scratch.rename(final)
        except OSError:  # another process finished first: use its build
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final


def _run(argv: list[str], cwd: Path | None) -> None:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=_BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise BuildFailed(f"{argv[0]} did not finish within {_BUILD_TIMEOUT:g} s") from None
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise BuildFailed(f"{Path(argv[0]).name} failed (exit status {done.returncode}): {tail}")
