"""json_dumps_ensure_ascii built-in: escaped and raw UTF-8 output are equivalent as JSON (with a
note); a lossy ASCII encoding is not."""

from support.builtin_checks import perflab_run, with_wrong_contender


def test_raw_utf8_output_is_equivalent_with_a_note(tmp_path):
    code, verdicts = perflab_run(tmp_path, "json_dumps_ensure_ascii", "--case", "CJK")
    verdict = verdicts[("CJK", "ensure_ascii_false")]
    assert verdict["status"] == "equivalent"
    assert "raw UTF-8 instead of \\u escapes" in verdict["note"]
    for key, verdict in verdicts.items():
        assert verdict["status"] in ("reference", "equivalent", "skipped"), (key, verdict)


def test_a_lossy_ascii_encoding_is_not_equivalent(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "json_dumps_ensure_ascii",
        """
import json


@bench.contender
def ascii_replace(obj):
    return json.dumps(obj, ensure_ascii=False).encode("ascii", "replace")
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "EUROPEAN", "--contender", "ascii_replace")
    assert code == 1
    verdict = verdicts[("EUROPEAN", "ascii_replace")]
    assert verdict["status"] == "not equivalent"
    assert verdict["difference"].startswith("parsed values differ at [0]['status']")
