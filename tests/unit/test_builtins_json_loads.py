"""json_loads built-in: every contender parses like the stdlib; wrong parsers are caught;
the incremental contender gives the same value wherever the input is cut."""

import json

import pytest

from perflab.bench.comparators import first_difference
from perflab.builtins import json_loads

# Escapes (\" \\ \/ \uXXXX, a surrogate pair), control escapes and raw multi-byte UTF-8
# (2, 3 and 4 bytes), plus numbers whose types and exact values must survive. (Integers beyond
# 63 bits are left out: ijson's yajl2 C backend rejects them with "integer overflow".)
TRICKY = (
    '{"cut": "Text v \\"uvozovk\\u00E1ch\\"", "raw": "žluťoučký kůň 日本語 😀", '
    '"pair": "\\ud83d\\ude00", "controls": "tab\\there\\nnew \\\\ \\/ \\b\\f\\r", '
    '"numbers": [0, -1, 1.5e-7, -0.0, 9007199254740993, 3.141592653589793, 1E-300], '
    '"nested": {"ok": true, "no": false, "none": null, "empty": [{}, []]}}'
).encode()


def test_incremental_parser_gives_the_same_value_at_every_chunk_boundary():
    ijson = pytest.importorskip("ijson")  # the backend the contender uses (yajl2_c when built)
    expected = json.loads(TRICKY)
    for offset in range(1, len(TRICKY)):  # an empty chunk would mean end of input
        value = json_loads.parse_chunks(ijson, [TRICKY[:offset], TRICKY[offset:]])
        assert first_difference(expected, value) is None, f"split at byte {offset}"


def test_incremental_parser_rejects_a_truncated_document():
    ijson = pytest.importorskip("ijson")
    with pytest.raises(ijson.IncompleteJSONError):
        json_loads.parse_chunks(ijson, [TRICKY[:-1]])
