"""pytest-memray's limit_memory and limit_leaks markers, honoured by perflab's plugin under
``pytest --perflab``: a real pytest subprocess on a test file written for pytest-memray."""

import textwrap

from support.pytest_runs import run_pytest

MEMRAY_TESTS = """
import pytest

KEPT = []


@pytest.mark.limit_memory("1 MB")
def test_under_its_limit():
    block = bytearray(100_000)
    assert len(block) == 100_000


@pytest.mark.limit_memory("1 MB")
def test_failing_by_itself():
    assert False, "its own failure"


@pytest.mark.limit_memory("1 MB")
def test_over_its_limit():
    block = bytearray(4 * 1024 * 1024)
    assert len(block) > 0


@pytest.mark.limit_leaks("1 KB")
def test_leaking():
    for _ in range(100):
        KEPT.append(bytearray(1_000))


@pytest.mark.limit_leaks("1 KB")
def test_not_leaking():
    for _ in range(100):
        bytearray(1_000)


@pytest.mark.limit_memory("24 MB")
def test_timed_while_tracked(benchmark):
    benchmark(sum, range(10))


@pytest.mark.limit_memory("lots")
def test_a_size_that_does_not_parse():
    pass


@pytest.mark.limit_leaks("1 KB", warmups=5)
def test_an_argument_pytest_memray_does_not_take():
    pass
"""


def test_a_pytest_memray_file_runs_unchanged(tmp_path):
    """One pytest process for all eight (~5 s of CPU; longer in wall time on a loaded machine)."""
    (tmp_path / "test_memory.py").write_text(textwrap.dedent(MEMRAY_TESTS))
    done = run_pytest(tmp_path, "--perflab", "--strict-markers", "-rf", "--benchmark-max-time", "0.3")
    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout
    assert "5 failed, 3 passed" in output, output  # a marker's bad arguments fail its test, not the session
    assert "FAILED test_memory.py::test_over_its_limit - Test was limited to 1.0MiB but allocated 4.0MiB" in output
    assert (
        "FAILED test_memory.py::test_leaking - Test was allowed to leak 1.0KiB per location but at least one "
        "location leaked more" in output
    )
    assert "List of leaked allocations:" in output and "test_leaking:" in output
    # a marked test failing by itself before the others: they were errors ("Output file ... exists")
    assert "AssertionError: its own failure" in output and "exists" not in output
    assert (
        "@pytest.mark.limit_memory('lots'): Invalid memory size format: lots (a size is written as '24 MB', "
        "'512 KB' or '1.5 GB')" in output
    )
    assert "@pytest.mark.limit_leaks('1 KB', warmups=5): got an unexpected keyword argument 'warmups'\n" in output
    assert (  # a benchmark in a tracked test: memray's overhead is in its times, and the summary says so
        "test_timed_while_tracked: " in output
        and "  note: timed under memray's tracker (@pytest.mark.limit_memory tracks the whole test): its overhead is "
        "in these times"
        in output
    )
