"""Broken optimizations of writing floats as a JSON array: a different float formatting.

The declared case holds ordinary floats. '%.6g' loses digits there already; ``repr`` is exactly
json's float formatting for finite floats, so only NaN and infinities (which json writes as
NaN/Infinity, repr as nan/inf) tell it apart: that takes generated inputs.
"""

import json

import perflab

bench = perflab.Benchmark("float_text", description="Write a list of floats as a JSON array", compare="exact")


@bench.case
def READINGS():
    return [0.1, 2.5, -3.0, 3.141592653589793, 1e-07, 6.02214076e23, -0.0]


@bench.strategy
def float_lists(st):
    return st.lists(st.floats(), max_size=8)  # NaN and infinities included: "exact" handles them


@bench.contender(reference=True)
def stdlib(values):
    """json.dumps."""
    return json.dumps(values)


@bench.contender
def percent_g(values):
    """'%.6g' per value: shorter and faster to format, but it rounds."""
    return "[" + ", ".join("%.6g" % value for value in values) + "]"  # noqa: UP031 - %-formatting is the point


@bench.contender
def repr_join(values):
    """repr per value: the same digits as json for finite floats, but 'nan' and 'inf'."""
    return "[" + ", ".join(map(repr, values)) + "]"


@bench.contender(description="control: a reused JSONEncoder, correct")
def encoder(values, _encode=json.JSONEncoder().encode):
    return _encode(values)
