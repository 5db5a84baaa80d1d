"""Shared pieces of the native-program figures: the C++ program with a known amount of work
(tests/native/split.cpp: ``split N`` does 4N iterations of one loop, 3N in split::heavy and N in
split::light), compiled here, and its work sized to a wall time."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path

from _common import PerflabRun, run_perflab

SPLIT_SOURCE = Path(__file__).resolve().parent.parent / "tests" / "native" / "split.cpp"


def compile_split(directory: Path) -> Path:
    """``split`` built with g++ -O2, frame pointers and debug lines (for both perf call graphs)."""
    compiler = shutil.which("g++")
    if compiler is None:
        raise SystemExit("these figures need g++ (a C++ compiler)")
    binary = directory / "split"
    subprocess.run([compiler, "-O2", "-g", "-fno-omit-frame-pointer", "-o", binary, SPLIT_SOURCE], check=True)
    return binary


def wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def size_for(binary: Path, seconds: float) -> int:
    """The N that makes ``split N`` last about ``seconds`` (median of a few runs)."""
    n = 100_000
    while True:
        took = statistics.median(wall([str(binary), str(n)]) for _ in range(3))
        if took >= seconds / 4 or n > 10**10:
            return max(1, round(n * seconds / took))
        n *= 4


def slowed(binary: Path, n: int, slowdown: float, runs: int = 21) -> tuple[int, dict[str, float]]:
    """The M whose ``split M`` takes ``1 + slowdown`` times as long as ``split N``, process start-up
    included, and the two medians it was sized from.

    The start-up (``split 1``) and the whole run (``split N``) are each a median of ``runs`` runs,
    alternated; M adds the iterations that last ``slowdown`` of the whole run. This divides by the
    whole run, never by a small measured difference (a first version corrected M by the measured
    ratio minus one, and noise in that 5% difference sized M to a ratio of 0.73)."""
    start_up, whole = [], []
    for _ in range(runs):
        start_up.append(wall([str(binary), "1"]))
        whole.append(wall([str(binary), str(n)]))
    fixed, total = statistics.median(start_up), statistics.median(whole)
    per_iteration = max(total - fixed, 1e-9) / n
    m = n + round(slowdown * total / per_iteration)
    return m, {"start_up_s": fixed, "whole_s": total}


def split_program(directory: Path, seconds: float) -> tuple[Path, int]:
    """``split`` compiled into ``directory``, and the N that makes one run last about ``seconds``."""
    binary = compile_split(directory)
    return binary, size_for(binary, seconds)


def compare_commands(
    first: str, second: str, out: Path, *options: str, names: tuple[str, str] = ("A", "B")
) -> PerflabRun:
    """``perflab run --command FIRST --command SECOND --no-store OPTIONS`` as contenders ``names``."""
    return run_perflab(
        None,
        out,
        "--command", first, "--name", names[0],
        "--command", second, "--name", names[1],
        *options, "--no-store",
    )  # fmt: skip
