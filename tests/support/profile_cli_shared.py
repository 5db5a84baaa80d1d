"""What the tiers of test_profile_cli.py share (split by tier from one file)."""

import textwrap

import pytest

from perflab.profile.model import Profile
from perflab.profile.shares import frame_shares
from support.cli import run_perflab

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
        total = heavy(n)  # two lines in a known proportion, for profiles by line (--lines)
        return total + light(n)

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


HEAVY_LINE, LIGHT_LINE = (
    next(
        number for number, line in enumerate(textwrap.dedent(BENCH).splitlines(), 1) if line.lstrip().startswith(start)
    )
    for start in ("total = heavy(n)", "return total + light(n)")
)


def check_line_profile(bench_file, *options) -> None:
    """``perflab profile --lines`` of BENCH's work: its two lines as frames, the heavy one hotter, tables by line."""
    out = bench_file.with_name("lines.json")
    # 600 samples, not 200: the light line holds ~3% of them, and 200 missed it once in ~400 runs
    quick = [*PROFILE_QUICK, "--samples", "600"]
    result = run_perflab("profile", bench_file, "--case", "SMALL", "--lines", *options, *quick, "--json", out)
    assert result.returncode == 0, result.stderr
    profile = Profile.load(out)
    assert profile.metadata["lines"] is True
    totals = {share.frame: share.total.value for share in frame_shares(profile.runs)}
    heavy, light = (totals[f"work (<project>/{bench_file.name}:{line})"] for line in (HEAVY_LINE, LIGHT_LINE))
    assert heavy > light > 0
    # the source view's text, read when the profile was taken (perflab.profile.sources)
    work = next(source for source in profile.metadata["sources"] if source["name"] == "work")
    assert work["lines"][HEAVY_LINE - work["first"]].lstrip().startswith("total = heavy(n)")
    assert "lines by self share (time in the line itself)" in result.stdout
    assert "Python frames by line" in result.stdout
