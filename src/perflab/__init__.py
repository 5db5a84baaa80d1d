"""perflab: a performance lab for Python.

The public API of benchmark files is ``Benchmark`` (see perflab.bench.spec) and the comparator classes.
Kept import-light: worker processes import this package too.
"""

from perflab.bench.commands import InnerMetric
from perflab.bench.comparators import Comparator, Outcome
from perflab.bench.spec import Benchmark

__version__ = "0.1.0"
__all__ = ["Benchmark", "Comparator", "InnerMetric", "Outcome", "__version__"]
