"""The worker side: code that runs inside worker processes, under the measured interpreter.

Standard library only (and the benchmark-file API, perflab.bench.spec and perflab.bench.comparators): a
worker may run under another Python (``--python``) with none of perflab's dependencies. Checked by
import-linter (pyproject.toml) and by tests/external/test_worker_boundary.py, which runs these modules under
other interpreters without site-packages. Hypothesis is the one exception, imported only when a
fuzzing job asks for generated inputs.
"""
