"""perflab: a performance lab for Python.

The public API of benchmark files is ``Benchmark`` (see perflab.bench.spec) and the comparator classes.
Kept import-light: worker processes import this package too, and so does ``perflab --help``, which
needs none of the public names: each is imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

    from perflab.bench.commands import InnerMetric
    from perflab.bench.comparators import Comparator, Outcome
    from perflab.bench.spec import Benchmark

__version__ = "0.1.0"
__all__ = ["Benchmark", "Comparator", "InnerMetric", "Outcome", "__version__"]
_HOMES = {
    "Benchmark": "perflab.bench.spec",
    "Comparator": "perflab.bench.comparators",
    "InnerMetric": "perflab.bench.commands",
    "Outcome": "perflab.bench.comparators",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'perflab' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value  # later uses find it without this function
    return value
