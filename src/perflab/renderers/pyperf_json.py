"""Export to pyperf's JSON format, one file per contender, written through pyperf itself.

``pyperf compare_to DIR/a.json DIR/b.json`` compares contenders case by case, and
``pyperf stats DIR/a.json`` describes one. Each perflab process becomes one pyperf run with its
warmups and values (seconds per call) and its loop count.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyperf

from perflab.results import RunResult


def export(result: RunResult, directory: str | Path) -> list[Path]:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for contender in dict.fromkeys(cell.contender for cell in result.cells):
        benchmarks = []
        for cell in (c for c in result.cells if c.contender == contender):
            runs = [pyperf.Run(run.values, warmups=[(run.loops, w) for w in run.warmups],
                               metadata={"name": cell.case, "loops": run.loops, "unit": "second"},
                               collect_metadata=False)
                    for run in cell.measured_runs() if run.loops]
            if runs:
                benchmarks.append(pyperf.Benchmark(runs))
        if benchmarks:
            path = directory / f"{_safe(contender)}.json"
            suite = pyperf.BenchmarkSuite(benchmarks)
            suite.dump(str(path), replace=True)
            written.append(path)
    return written


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)
