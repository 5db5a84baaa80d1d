"""A benchmark narrowed to one contender and a candidate replacement for it (perflab mcp's
verify_candidate): the candidate's source is run in a copy of the benchmark file's namespace, so
that it can use the file's imports and helpers without changing them, and the contender becomes
the reference the candidate must be equivalent to.

Standard library only: worker processes load the file perflab.agent.candidate writes, which
calls ``with_candidate``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from perflab.bench.loading import load_benchmark, module_name
from perflab.bench.spec import Benchmark, BenchmarkFileError, Contender


def with_candidate(benchmark_file: str, reference: str, candidate_file: str, function: str, name: str) -> Benchmark:
    """The benchmark of ``benchmark_file`` with only ``reference`` (now the reference) and, as
    contender ``name``, the function ``function`` that ``candidate_file`` defines."""
    benchmark = load_benchmark(benchmark_file)
    if reference not in benchmark.contenders:
        declared = ", ".join(benchmark.contenders)
        raise BenchmarkFileError(f"{benchmark_file}: unknown contender {reference!r} (declared: {declared})")
    source_module = sys.modules.get(module_name(Path(benchmark_file)))
    namespace = dict(vars(source_module)) if source_module is not None else {}
    namespace["__name__"] = "perflab_candidate"
    exec(compile(Path(candidate_file).read_text(), candidate_file, "exec"), namespace)
    candidate = namespace.get(function)
    if not callable(candidate):
        raise BenchmarkFileError(f"{candidate_file}: the candidate source defines no function {function!r}")
    kept = benchmark.contenders[reference]
    benchmark.contenders = {reference: Contender(kept.name, kept.function, kept.setup, True, kept.description)}
    benchmark.contender(candidate, name=name)
    return benchmark
