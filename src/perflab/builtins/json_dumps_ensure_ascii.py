"""json.dumps ensure_ascii=True vs False on ASCII-only and non-ASCII text; stdlib, ujson, orjson.

Case study 6 of perflab (docs/case-studies.md): ``json.dumps(..., ensure_ascii=False)`` was once
much slower than the default ``ensure_ascii=True``, because only the latter had a C fast path.
A benchmark should reveal such asymmetries, so this one measures both settings on the same
records in three alphabets: ASCII only, European text (mostly ASCII, some accented letters) and
CJK text (almost no ASCII). Throughput counts the bytes of the default (escaped) output, the same
yardstick for every contender.

Outputs are compared as JSON values (comparator "json"): escaped and raw UTF-8 text parse to the
same strings, so those contenders are equivalent, with a note on how the bytes differ.
``ensure_ascii_false_utf8`` adds the UTF-8 encoding that a str needs before it goes to a socket or
file, since orjson already returns bytes.
"""

import json

import perflab

bench = perflab.Benchmark(
    "json_dumps_ensure_ascii",
    description="Serialize records of text to JSON, escaping non-ASCII or not",
    compare="json",
)

TEXTS = {
    "ascii": ["Order shipped to the warehouse", "Customer asked for a refund", "Payment confirmed"],
    "european": ["Zamówienie wysłane do magazynu", "Zákazník žádá o vrácení peněz", "Paiement confirmé à l'hôtel"],
    "cjk": ["注文は倉庫に発送されました", "顾客要求退款", "결제가 확인되었습니다"],
}


def records(alphabet, count=200):
    """``count`` small records whose strings are in one alphabet."""
    texts = TEXTS[alphabet]
    return [
        {
            "id": i,
            "status": texts[i % 3],
            "note": texts[(i + 1) % 3],
            "tags": [texts[(i + 2) % 3]],
            "amount": i * 1.25,
            "paid": i % 2 == 0,
        }
        for i in range(count)
    ]


def escaped_bytes(obj):
    """Work per call: the size of the default (ensure_ascii=True) output."""
    return len(json.dumps(obj).encode())


@bench.case(bytes=escaped_bytes)
def ASCII():
    return records("ascii")


@bench.case(bytes=escaped_bytes)
def EUROPEAN():
    return records("european")


@bench.case(bytes=escaped_bytes)
def CJK():
    return records("cjk")


@bench.contender(reference=True)
def ensure_ascii_true(obj):
    """json.dumps(obj): the default, non-ASCII escaped as \\uXXXX."""
    return json.dumps(obj)


@bench.contender
def ensure_ascii_false(obj):
    """json.dumps(obj, ensure_ascii=False): raw characters in a str."""
    return json.dumps(obj, ensure_ascii=False)


@bench.contender
def ensure_ascii_false_utf8(obj):
    """json.dumps(obj, ensure_ascii=False).encode(): raw characters, as UTF-8 bytes."""
    return json.dumps(obj, ensure_ascii=False).encode()


@bench.contender(setup=True)
def ujson_ascii():
    """ujson.dumps(obj) (ensure_ascii=True by default)."""
    import ujson

    return ujson.dumps


@bench.contender(setup=True)
def ujson_utf8():
    """ujson.dumps(obj, ensure_ascii=False)."""
    import ujson

    def dumps(obj):
        return ujson.dumps(obj, ensure_ascii=False)

    return dumps


@bench.contender(setup=True)
def orjson():
    """orjson.dumps(obj): always raw UTF-8 bytes (it has no ensure_ascii option)."""
    import orjson

    return orjson.dumps
