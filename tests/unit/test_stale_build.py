"""The stale-build rule of the pytest plugin (perflab.pytest_plugin.stale_build), on real files' times."""

import os

from perflab.pytest_plugin.stale_build import built_after


def test_an_extension_copied_with_whole_second_times_after_a_change_is_not_stale(tmp_path):
    """setuptools' in-place copy keeps the build's time cut to the second: a source touched at 100.6 s
    and built 0.3 s later reads 100.0 s; the same build a second later than the change is fresh too,
    and one from before the change's second is stale."""
    source, extension = tmp_path / "spin.c", tmp_path / "spin.so"
    source.write_text("int x;\n")
    extension.write_bytes(b"\x7fELF")
    os.utime(source, (100.6, 100.6))
    for built, fresh in ((100.0, True), (101.0, True), (99.0, False)):
        os.utime(extension, (built, built))
        assert built_after(extension, source) == fresh
