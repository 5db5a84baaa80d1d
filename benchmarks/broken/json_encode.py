"""Broken optimizations of json.dumps: caches that answer for an object they no longer describe.

Both caches look safe on the declared case: each input is serialized once. They break when the
caller mutates a dict it serialized before (common: a request dict updated in a loop), and
when a dict is freed and CPython hands its id to a new one.
"""

import json

import perflab

bench = perflab.Benchmark("json_encode", description="Serialize a dict to JSON text", compare="json")


@bench.case
def ORDER():
    return {
        "id": 981,
        "customer": "Zoë",
        "items": [{"sku": "A-1", "qty": 2, "price": 9.5}],
        "paid": False,
        "note": None,
    }


@bench.contender(reference=True)
def stdlib(obj):
    """json.dumps."""
    return json.dumps(obj)


_by_id = {}


@bench.contender
def id_cache(obj):
    """json.dumps memoized by id(obj): 'the same object gives the same text'."""
    key = id(obj)
    if key not in _by_id:
        _by_id[key] = json.dumps(obj)
    return _by_id[key]


_by_id_and_size = {}


@bench.contender
def id_size_cache(obj):
    """Memoized by (id, len): 'a changed dict has a different size', unless a value is replaced."""
    key = (id(obj), len(obj) if isinstance(obj, (dict, list, str)) else None)
    if key not in _by_id_and_size:
        _by_id_and_size[key] = json.dumps(obj)
    return _by_id_and_size[key]


@bench.contender(setup=True, description="control: orjson, a correct faster encoder")
def orjson():
    import orjson

    return orjson.dumps
