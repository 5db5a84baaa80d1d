"""json_loads built-in: every contender parses like the stdlib; wrong parsers are caught;
the incremental contender gives the same value wherever the input is cut."""

import pytest
from support.builtin_checks import perflab_run, with_wrong_contender


def test_every_installed_contender_is_equivalent(tmp_path):
    # --no-fuzz: generated documents find real differences (ujson accepting a truncated document,
    # ijson's yajl2 backend overflowing on -2**63) or not depending on what the seed draws, so a
    # verdict on them is not deterministic; the stateful call patterns on the declared case still run.
    code, verdicts = perflab_run(tmp_path, "json_loads", "--case", "CANADA", "--no-fuzz")
    assert {case for case, _ in verdicts} == {"CANADA", "fuzzing"}  # the declared case, and run's call patterns
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
    code, verdicts = perflab_run(tmp_path, path, "--case", "CANADA", "--contender", "rounded_floats", "--no-fuzz")
    assert code == 1
    verdict = verdicts[("CANADA", "rounded_floats")]
    assert verdict["status"] == "not equivalent"
    assert ", contender " in verdict["difference"] and "['features']" in verdict["difference"]


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
    assert "type: reference dict " in verdict["difference"]
