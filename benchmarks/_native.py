"""Shared pieces of the native-program figures: the C++ program with a known amount of work
(tests/native/split.cpp: ``split N`` does 4N iterations of one loop, 3N in split::heavy and N in
split::light), compiled here, and its work sized to a wall time."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path

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


def slowed(binary: Path, n: int, slowdown: float, pairs: int = 15) -> tuple[int, float]:
    """The M whose ``split M`` takes ``1 + slowdown`` times as long as ``split N`` (process start-up
    included), and the ratio measured at it: alternate runs, medians, one correction step."""
    m = round(n * (1 + slowdown))
    for step in range(2):
        a, b = [], []
        for _ in range(pairs):
            a.append(wall([str(binary), str(n)]))
            b.append(wall([str(binary), str(m)]))
        ratio = statistics.median(b) / statistics.median(a)
        if step == 0:  # the start-up cost does not grow with N: correct the extra work once
            m = round(n + (m - n) * slowdown / max(ratio - 1, 1e-3))
    return m, ratio
