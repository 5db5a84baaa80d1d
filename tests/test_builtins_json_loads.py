"""json_loads built-in: every contender parses like the stdlib; wrong parsers are caught;
the incremental contender gives the same value wherever the input is cut."""

import json

import pytest
from support.builtin_checks import perflab_run, with_wrong_contender

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


def test_every_installed_contender_is_equivalent(tmp_path):
    code, verdicts = perflab_run(tmp_path, "json_loads", "--case", "CANADA")
    assert {case for case, _ in verdicts} == {"CANADA"}
    for key, verdict in verdicts.items():
        assert verdict["status"] in ("reference", "equivalent", "skipped"), (key, verdict)
    assert verdicts[("CANADA", "json_stdlib")]["comparator"] == "exact"


def test_a_parser_that_rounds_floats_is_not_equivalent(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "json_loads",
        """
@bench.contender
def rounded_floats(document):
    import json
    return json.loads(document, parse_float=lambda text: round(float(text), 6))
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "CANADA", "--contender", "rounded_floats")
    assert code == 1
    verdict = verdicts[("CANADA", "rounded_floats")]
    assert verdict["status"] == "not equivalent"
    assert "!=" in verdict["difference"] and "['features']" in verdict["difference"]


def test_lazy_simdjson_proxies_are_not_full_parsing(tmp_path):
    pytest.importorskip("simdjson")
    path = with_wrong_contender(
        tmp_path,
        "json_loads",
        """
@bench.contender(setup=True)
def simdjson_lazy():
    import simdjson
    return lambda document: simdjson.Parser().parse(document)   # proxies, not Python objects
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "PYPERF_DICT", "--contender", "simdjson_lazy")
    verdict = verdicts[("PYPERF_DICT", "simdjson_lazy")]
    assert verdict["status"] == "not equivalent"
    assert "type dict !=" in verdict["difference"]


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
