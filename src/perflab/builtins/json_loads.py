"""json.loads: parse standard JSON documents to Python objects; stdlib vs orjson, msgspec, ujson, simdjson, ijson.

Case study 4 of perflab (docs/case-studies.md): measure *full* parsing in MB/s. Every contender
must hand back ordinary Python objects (dicts, lists, str, int, float), so pysimdjson is asked to
materialize the whole document (``recursive=True``) instead of returning lazy proxies, which would
only measure indexing. The incremental parser (ijson) is fed the document in 64 KiB chunks, as it
would be fed from a socket.

Inputs are bytes, as they come from a file or the network; MB/s counts the bytes of the document.
Cases: twitter.json (strings, much non-ASCII), citm_catalog.json (objects, integers), canada.json
(floats), and the three small documents of pyperformance's json_loads benchmark.

Equivalence (comparator "exact"): the parsed value must equal the stdlib's, with the same types
(1 is not 1.0) and floats compared exactly (by repr), so a parser that rounds a float differently
is NOT EQUIVALENT. That ijson also gives the same value whatever the chunk boundaries are is
checked in tests/unit/test_builtins_json_loads.py (a document with escapes and multi-byte UTF-8 split
at every byte offset). ``perflab compare json_loads`` also parses generated documents; it finds
that ijson's yajl2 C backend rejects integers such as -2**63 ("integer overflow").
"""

import json
import random
import sys

import perflab
from perflab.builtins.data import json_document

bench = perflab.Benchmark(
    "json_loads",
    description="Parse a JSON document (bytes) into Python objects",
    compare="exact",
    # Invalid JSON must be refused by every parser, but each refuses with its own exception type
    # (ijson's IncompleteJSONError, msgspec's DecodeError are no ValueError): "any" compares where
    # they raise, not what.
    errors="any",
)

CHUNK = 64 * 1024  # what the incremental parser is fed at a time


@bench.strategy  # perflab compare also parses generated documents (nested values, any floats)
def documents(st):
    from perflab.bench.worker.fuzz import json_values

    return json_values(st, allow_nan=False).map(lambda value: json.dumps(value).encode())


def document_bytes(document):
    """Work per call: the size of the document, so throughput is in MB/s."""
    return len(document)


# The standard documents (checked against their sha256 when read).
@bench.case(bytes=document_bytes)
def TWITTER():
    return json_document("twitter.json")


@bench.case(bytes=document_bytes)
def CITM_CATALOG():
    return json_document("citm_catalog.json")


@bench.case(bytes=document_bytes)
def CANADA():
    return json_document("canada.json")


# pyperformance's json_loads inputs: a user profile, a list of ids, three mutated profiles.
PROFILE = {
    "ads_flags": 0,
    "age": 18,
    "bulletin_count": 0,
    "comment_count": 0,
    "country": "BR",
    "encrypted_id": "G9urXXAJwjE",
    "favorite_count": 9,
    "first_name": "",
    "flags": 412317970704,
    "friend_count": 0,
    "gender": "m",
    "gender_for_display": "Male",
    "id": 302935349,
    "is_custom_profile_icon": 0,
    "last_name": "",
    "locale_preference": "pt_BR",
    "member": 0,
    "tags": ["a", "b", "c", "d", "e", "f", "g"],
    "profile_foo_id": 827119638,
    "secure_encrypted_id": "Z_xxx2dYx3t4YAdnmfgyKw",
    "session_number": 2,
    "signup_id": "201-19225-223",
    "status": "A",
    "theme": 1,
    "time_created": 1225237014,
    "time_updated": 1233134493,
    "unread_message_count": 0,
    "user_group": "0",
    "username": "collinwinter",
    "play_count": 9,
    "view_count": 7,
    "zip": "",
}
IDS = (
    [
        265867233,
        265868503,
        265252341,
        265243910,
        265879514,
        266219766,
        266021701,
        265843726,
        265592821,
        265246784,
        265853180,
        45526486,
        265463699,
        265848143,
        265863062,
        265392591,
        265877490,
        265823665,
        265828884,
        265753032,
    ],
    60,
)


def mutated_profile(rng):
    """pyperformance's mutate_dict: every value replaced by the text of a random number."""
    return {key: str(rng.random() * sys.maxsize) for key in PROFILE}


@bench.case(bytes=document_bytes)
def PYPERF_DICT():
    return json.dumps(PROFILE).encode()


@bench.case(bytes=document_bytes)
def PYPERF_TUPLE():
    return json.dumps(IDS).encode()


@bench.case(bytes=document_bytes)
def PYPERF_DICT_GROUP():
    rng = random.Random(5)  # pyperformance's fixed seed
    return json.dumps([mutated_profile(rng) for _ in range(3)]).encode()


@bench.contender(reference=True)
def json_stdlib(document):
    """The standard library parser (C accelerated)."""
    return json.loads(document)


@bench.contender(setup=True)
def orjson():
    """orjson (Rust)."""
    import orjson

    return orjson.loads


@bench.contender(setup=True)
def msgspec():
    """msgspec's JSON decoder (C), reused across calls as its docs recommend."""
    import msgspec

    return msgspec.json.Decoder().decode


@bench.contender(setup=True)
def ujson():
    """ujson (C)."""
    import ujson

    return ujson.loads


@bench.contender(setup=True)
def simdjson():
    """pysimdjson, fully materialized (recursive=True), not lazy proxies."""
    import simdjson

    parser = simdjson.Parser()  # one parser reused across documents, as simdjson intends

    def parse(document):
        return parser.parse(document, recursive=True)

    return parse


@bench.contender(setup=True)
def ijson_chunks():
    """ijson (yajl2 C backend where available), pushed the document in 64 KiB chunks."""
    import ijson

    def parse(document):
        return parse_chunks(ijson, (document[start : start + CHUNK] for start in range(0, len(document), CHUNK)))

    return parse


def parse_chunks(ijson, chunks):
    """Push ``chunks`` (bytes) into ijson's incremental parser; the one top-level value."""
    values = ijson.sendable_list()
    # use_float=True: plain floats like the others (ijson's default is decimal.Decimal).
    parser = ijson.items_coro(values, "", use_float=True)
    for chunk in chunks:
        parser.send(chunk)
    parser.close()  # end of input: a truncated document raises here
    return values[0]
