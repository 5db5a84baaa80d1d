"""logging_messages built-in: the tuned stdlib writes the same text; stale timestamps, a skipped
caller lookup with caller fields in the format, and missing packages are all reported."""

from support.builtin_checks import perflab_run, with_wrong_contender


def test_tuned_stdlib_emits_the_same_text(tmp_path):
    code, verdicts = perflab_run(tmp_path, "logging_messages", "--case", "FORMAT,REALISTIC")
    for case in ("FORMAT", "REALISTIC"):
        assert verdicts[(case, "stdlib_default")]["status"] == "reference"
        assert verdicts[(case, "stdlib_tuned")]["status"] == "equivalent"
        assert verdicts[(case, "stdlib_tuned")]["comparator"] == "same_log_text"
    assert verdicts[("FORMAT", "picologging")]["status"] in ("equivalent", "skipped")


def test_a_stale_timestamp_is_not_equivalent(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "logging_messages",
        '''
@bench.contender(setup=True)
def cached_timestamp():
    """Writes every line with a timestamp taken once, long ago."""
    import logging, re
    emit = base.emitter(logging)
    return lambda scenario: re.sub(r"^\\S+ \\S+", "2001-01-01 00:00:00,000", emit(scenario), flags=re.M)
''',
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "REALISTIC", "--contender", "cached_timestamp")
    assert code == 1
    verdict = verdicts[("REALISTIC", "cached_timestamp")]
    assert verdict["status"] == "not equivalent"
    assert "timestamp 2001-01-01 00:00:00,000 is" in verdict["difference"]


def test_skipping_the_caller_lookup_with_caller_fields_is_not_equivalent(tmp_path):
    # The "optimized logging" of case study 2: no findCaller, although the format prints %(lineno)d.
    path = with_wrong_contender(
        tmp_path,
        "logging_messages",
        """
@bench.case(items=base.messages)
def CALLER():
    return base.Scenario("shop.caller", "%(levelname)s line %(lineno)d: %(message)s", base.INFO, False,
                         base.realistic_calls(20))


@bench.contender(setup=True)
def srcfile_none():
    import logging
    logging._srcfile = None
    return base.emitter(logging)
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "CALLER", "--contender", "srcfile_none")
    verdict = verdicts[("CALLER", "srcfile_none")]
    assert verdict["status"] == "not equivalent"
    assert "line 0:" in verdict["difference"]


def test_a_missing_package_is_skipped_not_a_crash(tmp_path):
    path = with_wrong_contender(
        tmp_path,
        "logging_messages",
        """
@bench.contender(setup=True)
def not_installed():
    import picologging_is_not_a_real_package
    return base.emitter(picologging_is_not_a_real_package)
""",
    )
    code, verdicts = perflab_run(tmp_path, path, "--case", "SIMPLE", "--contender", "not_installed")
    verdict = verdicts[("SIMPLE", "not_installed")]
    assert verdict["status"] == "skipped"
    assert verdict["difference"].startswith("skipped: not installed (No module named 'picologging_is_not")
