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
"""


def test_a_pytest_memray_file_runs_unchanged(tmp_path):
    """One pytest process for all four (~5 s of CPU; longer in wall time on a loaded machine)."""
    (tmp_path / "test_memory.py").write_text(textwrap.dedent(MEMRAY_TESTS))
    done = run_pytest(tmp_path, "--perflab", "--strict-markers", "-rf")
    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout
    assert "2 failed, 2 passed" in output, output
    assert "FAILED test_memory.py::test_over_its_limit - Test was limited to 1.0MiB but allocated 4.0MiB" in output
    assert (
        "FAILED test_memory.py::test_leaking - Test was allowed to leak 1.0KiB per location but at least one "
        "location leaked more" in output
    )
    assert "List of leaked allocations:" in output and "test_leaking:" in output
