"""What the tiers of test_integrity.py share (split by tier from one file)."""

from hypothesis import strategies as st

from perflab.bench.worker import derived_strategies


def shapes(values):
    return derived_strategies.from_values(st, values).strategy
