"""The measured side: everything imported under the measured interpreter.

The benchmark-file API (spec, comparators, command contenders, the pyperf recorder, loading) and
the worker (``python -m perflab.bench.worker``). Standard library only: a worker may run under
another Python (``--python``) with none of perflab's dependencies. import-linter checks that this
package imports nothing else of perflab (pyproject.toml), and tests run its modules under other
interpreters without site-packages. Hypothesis is the one exception, imported by the fuzzing job
only when it asks for generated inputs.

Every worker imports these modules at its start, and a perflab run starts a dozen workers (under
valgrind, for the counted metrics, each module costs far more): so nothing here imports ``typing``
at run time (~5 ms of every worker's CPU; it brings ``re`` and ``enum``). Annotations are strings
(``from __future__ import annotations``) and the names they use are imported under
``TYPE_CHECKING = False`` / ``if TYPE_CHECKING:``, which mypy reads as typing.TYPE_CHECKING (the
idiom of CPython's own tomllib). The wire's TypedDicts (protocol.py) are therefore imported for
annotations only: a worker builds its events as dict literals, checked by mypy against them.
"""
