"""The jobs that describe a side rather than measure it: "describe" (the benchmark's names) and
"packages" (the distributions behind the modules the timed code imported). Standard library only."""

from __future__ import annotations

from perflab.bench.loading import load_benchmark
from perflab.bench.worker.events import EventStream

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from perflab.bench.protocol import DescribeJob, PackagesJob


def run_describe(job: DescribeJob, events: EventStream) -> None:
    """Names of the cases and contenders, as this side's file and interpreter see them."""
    benchmark = load_benchmark(job["file"])
    events.send(
        {
            "event": "describe",
            "name": benchmark.name,
            "cases": list(benchmark.cases),
            "contenders": list(benchmark.contenders),
            "reference": benchmark.reference.name,
            "compares": benchmark.comparator.compares,
        }
    )


def run_packages(job: PackagesJob, events: EventStream) -> None:
    """Which distributions, at which versions, provide each of the job's top-level modules.

    Scanning every installed distribution takes ~0.4 s: done once per run and interpreter, not in
    each timing worker (where it was seconds of a short run's budget)."""
    try:
        from importlib.metadata import packages_distributions, version
    except ImportError:  # Python < 3.10
        events.send({"event": "packages", "modules": {}})
        return
    distributions = packages_distributions()
    found: dict[str, dict[str, str]] = {}
    for module in job["modules"]:
        for dist in distributions.get(module, []):
            try:
                found.setdefault(module, {})[dist] = version(dist)
            except Exception:
                continue
    events.send({"event": "packages", "modules": found})
