"""Profiles of the measured operation: sampling, stack processing, shares with intervals, what-if.

The worker imports ``perflab.bench.worker.inprocess_sampler`` under the measured interpreter, so this package's
``__init__`` stays empty of imports: everything else here runs in the parent only.
"""
