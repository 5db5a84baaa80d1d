"""http_parse built-in: httptools and h11 agree on method, target, headers and body; a parser
that drops the query string is caught."""

import pytest
from support.builtin_checks import perflab_run, with_wrong_contender

pytest.importorskip("h11")


def test_httptools_parses_like_h11(tmp_path):
    pytest.importorskip("httptools")
    code, verdicts = perflab_run(tmp_path, "http_parse", "--case", "MIXED")
    assert verdicts[("MIXED", "h11")]["status"] == "reference"
    assert verdicts[("MIXED", "httptools")]["status"] == "equivalent"


def test_a_parser_that_drops_the_query_string_is_not_equivalent(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "http_parse",
        """
@bench.contender(setup=True)
def path_only():
    parse = base.h11()

    def without_query(requests):
        return [(method, target.split(b"?")[0], headers, body)
                for method, target, headers, body in parse(requests)]

    return without_query
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "BROWSER", "--contender", "path_only")
    assert code == 1
    verdict = verdicts[("BROWSER", "path_only")]
    assert verdict["status"] == "not equivalent"
    assert verdict["difference"].startswith("at [0][1]:")
