"""uuids built-in: the property comparator accepts every real v4 generator and rejects the wrong
version, duplicates and a non-canonical text form."""

from support.builtin_checks import perflab_run, with_wrong_contender


def test_every_installed_generator_has_the_v4_properties(tmp_path):
    code, verdicts = perflab_run(tmp_path, "uuids", "--case", "THOUSAND")
    assert verdicts[("THOUSAND", "stdlib_uuid4")]["status"] == "reference"
    assert verdicts[("THOUSAND", "getrandbits")]["status"] == "equivalent"
    for contender in ("uuid_utils", "fastuuid"):
        assert verdicts[("THOUSAND", contender)]["status"] in ("equivalent", "skipped")


def test_wrong_version_duplicates_and_hex_form_are_not_equivalent(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "uuids",
        """
import uuid


@bench.contender
def version1(n):
    return [str(uuid.uuid1()) for _ in range(n)]


@bench.contender
def one_id_reused(n):
    return [str(uuid.uuid4())] * n


@bench.contender
def hex_form(n):
    return [uuid.uuid4().hex for _ in range(n)]
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "THOUSAND", "--contender", "version1,one_id_reused,hex_form")
    assert code == 1
    assert "has version 1" in verdicts[("THOUSAND", "version1")]["difference"]
    assert "only 1 distinct ids among 1000" in verdicts[("THOUSAND", "one_id_reused")]["difference"]
    assert "not in canonical form" in verdicts[("THOUSAND", "hex_form")]["difference"]
    for contender in ("version1", "one_id_reused", "hex_form"):
        assert verdicts[("THOUSAND", contender)]["status"] == "not equivalent"
