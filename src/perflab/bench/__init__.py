"""The measured side: everything imported under the measured interpreter.

The benchmark-file API (spec, comparators, command contenders, the pyperf recorder, loading) and
the worker (``python -m perflab.bench.worker``). Standard library only: a worker may run under
another Python (``--python``) with none of perflab's dependencies. import-linter checks that this
package imports nothing else of perflab (pyproject.toml), and tests run its modules under other
interpreters without site-packages. Hypothesis is the one exception, imported by the fuzzing job
only when it asks for generated inputs.
"""
