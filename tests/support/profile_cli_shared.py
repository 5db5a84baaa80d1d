"""What the tiers of test_profile_cli.py share (split by tier from one file)."""

import textwrap

import pytest

BENCH = '''
    import os, time
    import perflab

    bench = perflab.Benchmark("split", description="two functions in a known proportion")

    @bench.case(items=1)
    def SMALL():
        return 3000

    @bench.case(items=1)
    def LARGE():
        return 30000

    def heavy(n):
        return sum(i * i for i in range(n))

    def light(n):
        return sum(range(n // 3))

    @bench.contender
    def work(n):
        return heavy(n) + light(n)

    _started = []

    @bench.contender
    def crashes(n):
        """Works for a while, then the process dies (after set-up and calibration)."""
        _started.append(time.perf_counter()) if not _started else None
        if time.perf_counter() - _started[0] > 0.8:
            os.abort()
        return heavy(n) + light(n)
'''


PROFILE_QUICK = ["--samples", "200", "--rate", "200", "--runs", "2", "--timeout", "30"]


@pytest.fixture
def bench(tmp_path):
    path = tmp_path / "bench.py"
    path.write_text(textwrap.dedent(BENCH))
    return path
