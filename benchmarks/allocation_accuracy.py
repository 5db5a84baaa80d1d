"""Figure: how exactly ``perflab profile --memory`` measures bytes allocated per call, and whether it
finds a leak of one small object per call.

1. Accuracy: contenders that allocate a known number of bytes per call and free them, in Python
   (``bytearray(n)``) and in a C extension (``numpy.empty(n, dtype=uint8)``), at three sizes. The
   known amount is ``sys.getsizeof`` of what one call returns (the object and the buffer it owns).
   Measured: bytes allocated per call of perflab.profile.allocations (exactly what
   ``perflab profile BENCH --memory`` runs: memray in DEFAULT_MEMORY_RUNS fresh workers, calls
   calibrated to 20 ms untracked), its 95% interval across processes, and the error against the
   known amount. Target: within 1% or 64 bytes.
   memray's profile hook makes CPython 3.11+ create a frame object per Python call, which an
   untracked call does not allocate; perflab counts and subtracts them (printed per call).
2. A leak: a contender that keeps one ``object()`` per call (16 bytes and a list slot), and one that
   keeps nothing, at the default budget. Found = the 95% interval of bytes still held per call
   lies above 1 byte (memory held in proportion to the calls; what a first call caches once is
   divided by the 100,000 calls).

Counts and bytes do not depend on the machine's load, so the figure can be taken on a busy machine.

    python benchmarks/allocation_accuracy.py
    python benchmarks/allocation_accuracy.py --quick   # smoke run: one size, 2 processes per cell

Writes benchmarks/results/allocation_accuracy.json.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, machine

from perflab.profile.allocations import AllocationSettings, per_call, profile_allocations
from perflab.profile.settings import DEFAULT_MEMORY_RUNS

SIZES = (100, 10_000, 1_000_000)
TARGET_FRACTION, TARGET_BYTES = 0.01, 64
LEAK_BYTES = 1.0  # held per call above which memory grows with the calls

BENCH = """
import sys
import numpy
import perflab

bench = perflab.Benchmark("known_allocations")
KEPT = []
{cases}

@bench.contender
def python_bytearray(n):
    return bytearray(n)


@bench.contender
def numpy_empty(n):
    return numpy.empty(n, dtype=numpy.uint8)


@bench.contender
def leaks_one_object(n):
    KEPT.append(object())


@bench.contender
def keeps_nothing(n):
    return n + 1
"""
CASE = """
@bench.case
def N{size}():
    return {size}
"""


def known_bytes(contender: str, size: int) -> int:
    import numpy

    made = bytearray(size) if contender == "python_bytearray" else numpy.empty(size, dtype=numpy.uint8)
    return sys.getsizeof(made)


def measure(path: Path, case: str, contender: str, runs: int) -> dict:
    started = time.monotonic()
    outcome = profile_allocations(str(path), case, contender, AllocationSettings(runs=runs))
    if outcome.error:
        raise RuntimeError(f"{case}/{contender}: {outcome.error}")
    figures = per_call(outcome.profile)
    infos = outcome.profile.metadata["run_info"]
    return {
        "frame_objects": sum(info["frame_objects"]["bytes"] for info in infos) / sum(info["loops"] for info in infos),
        "not_subtracted": sorted(
            {str(i["frame_objects"]["not_subtracted"]) for i in infos if i["frame_objects"]["not_subtracted"]}
        ),
        "calls": outcome.profile.metadata["run_info"][0]["loops"],
        "processes": len(outcome.profile.runs),
        **{name: [figures[name].value, figures[name].low, figures[name].high] for name in ("allocated", "held")},
        "seconds": round(time.monotonic() - started, 1),
    }


def main() -> None:
    arguments = _cli.parser(__doc__)
    arguments.add_argument(
        "--runs", type=int, default=DEFAULT_MEMORY_RUNS, help=f"processes per cell (default {DEFAULT_MEMORY_RUNS})"
    )
    args = _cli.parse(arguments, runs=2)
    sizes = SIZES[1:2] if _cli.is_smoke() else SIZES
    before = conditions()
    path = Path(tempfile.mkdtemp(prefix="perflab-figure-")) / "known_allocations.py"
    path.write_text(BENCH.format(cases="".join(CASE.format(size=size) for size in sizes)))

    accuracy = []
    for contender in ("python_bytearray", "numpy_empty"):
        for size in sizes:
            cell = measure(path, f"N{size}", contender, args.runs)
            known = known_bytes(contender, size)
            error = cell["allocated"][0] - known
            cell.update(contender=contender, size=size, known=known, error=error)
            cell["within_target"] = abs(error) <= max(TARGET_FRACTION * known, TARGET_BYTES)
            accuracy.append(cell)
            value, low, high = cell["allocated"]
            print(
                f"{contender} n={size:,}: {value:,.1f} B/call [95% CI {low:,.1f}, {high:,.1f}] over "
                f"{cell['processes']} processes of {cell['calls']:,} calls; known {known:,} B; error {error:+,.1f} B "
                f"({error / known:+.3%}); within 1% or 64 B: {'yes' if cell['within_target'] else 'NO'}; "
                f"frame objects subtracted: {cell['frame_objects']:,.1f} B/call"
            )
    leaks = {}
    for contender in ("leaks_one_object", "keeps_nothing"):
        cell = measure(path, f"N{sizes[0]}", contender, args.runs)
        value, low, high = cell["held"]
        cell["found"] = low > LEAK_BYTES
        leaks[contender] = cell
        print(
            f"{contender}: held {value:,.2f} B/call [95% CI {low:,.2f}, {high:,.2f}] after {cell['calls']:,} calls: "
            f"leak {'found' if cell['found'] else 'not found'}"
        )
    within = sum(cell["within_target"] for cell in accuracy)
    print(f"accuracy: {within}/{len(accuracy)} cells within 1% or 64 bytes of the known allocation")
    print(
        f"leak of one object per call found: {leaks['leaks_one_object']['found']}; "
        f"false leak on a contender that keeps nothing: {leaks['keeps_nothing']['found']}"
    )
    figure = {
        "settings": {"runs": args.runs, "sizes": list(sizes)},
        "accuracy": accuracy,
        "leaks": leaks,
        "before": before,
        "after": conditions(),
        "machine": machine(),
    }
    _cli.written(_cli.write_figure("allocation_accuracy", figure))


if __name__ == "__main__":
    main()
