"""json.dumps: the pyperformance json_dumps inputs, stdlib json vs orjson, ujson and msgspec.

Case study 1 of perflab (see docs): the inputs are pyperformance's EMPTY, SIMPLE, NESTED and
HUGE objects; one call serializes one of them. Throughput is counted in bytes of JSON produced
by the stdlib encoder, so every contender is credited with the same work.

The outputs are compared as JSON values (comparator "json"): orjson and msgspec produce compact
bytes with raw UTF-8, which parse to the same value, so they are equivalent but flagged with a
note. A contender whose output parsed to a different value would be NOT EQUIVALENT.
"""

import json

import perflab

bench = perflab.Benchmark(
    "json_dumps",
    description="Serialize a Python object to JSON text",
    compare="json",
)

SIMPLE_DATA = {"key1": 0, "key2": True, "key3": "value", "key4": "foo", "key5": "string"}
NESTED_DATA = {
    "key1": 0,
    "key2": SIMPLE_DATA,
    "key3": "value",
    "key4": SIMPLE_DATA,
    "key5": SIMPLE_DATA,
    "key": "\u0105\u0107\u017c",
}


def stdlib_bytes(obj):
    """Work per call: the size of the stdlib's output, the same yardstick for every contender."""
    return len(json.dumps(obj).encode())


@bench.case(bytes=stdlib_bytes)
def EMPTY():
    return {}


@bench.case(bytes=stdlib_bytes)
def SIMPLE():
    return dict(SIMPLE_DATA)


@bench.case(bytes=stdlib_bytes)
def NESTED():
    return dict(NESTED_DATA)


@bench.case(bytes=stdlib_bytes)
def HUGE():
    # The same object a thousand times, as in pyperformance: a cache keyed by id() would look
    # magically fast here, which is why equivalence is checked on fresh inputs too.
    return [NESTED_DATA] * 1000


@bench.contender(reference=True)
def json_stdlib(obj):
    """The standard library encoder (C accelerated)."""
    return json.dumps(obj)


@bench.contender(setup=True)
def orjson():
    """orjson (Rust); returns bytes."""
    import orjson

    return orjson.dumps


@bench.contender(setup=True)
def ujson():
    """ujson (C)."""
    import ujson

    return ujson.dumps


@bench.contender(setup=True)
def msgspec():
    """msgspec's JSON encoder (C); returns bytes."""
    import msgspec

    return msgspec.json.Encoder().encode
