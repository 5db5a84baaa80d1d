"""A benchmark of commands given on perflab's command line (``perflab run --command ...``).

Worker processes load benchmarks from files, so the commands are written into a small generated
benchmark file that holds them as JSON text: no user text ever becomes code.

Runs in worker processes: standard library only.
"""

from __future__ import annotations

import json
import os

from perflab.bench.commands import PLACEHOLDER
from perflab.bench.spec import Benchmark

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PLACEHOLDER", "benchmark_from_spec", "source"]


def benchmark_from_spec(spec: dict[str, Any]) -> Benchmark:
    """``{"name", "compare", "commands": [{"name", "argv", "shell", "input"}], "inputs": [{"name", "path"}]}``:
    each input file is a case (its size is the work per run, for MB/s); no input: one case."""
    benchmark = Benchmark(spec["name"], description="commands given on the command line", compare=spec["compare"])
    for given in spec["inputs"]:
        path = given["path"]
        benchmark.case(lambda path=path: path, name=given["name"], bytes=os.path.getsize(path))
    if not spec["inputs"]:
        benchmark.case(lambda: None, name="no input")
    for given in spec["commands"]:
        benchmark.command(given["name"], given["argv"], input=given["input"], shell=given["shell"])
    return benchmark


def source(spec: dict[str, Any]) -> str:
    """The text of a benchmark file declaring ``spec``."""
    literal = repr(json.dumps(spec))  # a Python string literal
    return (
        '"""Written by perflab for commands given on its command line."""\n\n'
        "import json\n\nfrom perflab.bench.command_line_benchmark import benchmark_from_spec\n\n"
        f"bench = benchmark_from_spec(json.loads({literal}))\n"
    )
