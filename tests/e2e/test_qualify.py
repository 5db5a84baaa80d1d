"""perflab qualify end to end: an A/A run of the real command line stores this machine's floors,
and a later check against a revision says them beside its "no detectable difference"."""

from __future__ import annotations

import os
import re
import textwrap

from support.cli import QUICK, run_perflab
from support.history_shared import BENCH, committed_project


def test_qualify_stores_what_this_machine_detects_and_check_says_it(tmp_path):
    project = committed_project(tmp_path / "project")
    env = {**os.environ, "PERFLAB_DB": str(tmp_path / "perflab.db")}

    # The hint stands beside a "no detectable difference": two rounds of identical code on a
    # loaded machine called a difference of a few percent once (CI), so differences under 30%
    # count as none here.
    before = run_perflab("check", "bench.py", "--against", "HEAD", *QUICK, "--min-effect", "30", cwd=project, env=env)
    assert before.returncode == 0, before.stdout + before.stderr
    assert "no detectable difference" in before.stdout, before.stdout
    assert "`perflab qualify` with this benchmark" in before.stdout

    qualified = run_perflab("qualify", "bench.py", *QUICK, cwd=project, env=env)
    assert qualified.returncode == 0, qualified.stdout + qualified.stderr
    assert "what this runner can detect: summing, A/A at 60 s per contender" in qualified.stdout
    row = re.search(
        r"SMALL +│ builtin_sum +│ .* │ \d+ +│ [\d.]+% +│ >= ([\d.,e+]+%)", qualified.stdout
    )  # (2 noisy rounds: 5.1e+49%)
    assert row, qualified.stdout
    assert "stored for this machine in" in qualified.stderr

    after = run_perflab("check", "bench.py", "--against", "HEAD", *QUICK, cwd=project, env=env)
    assert after.returncode == 0, after.stdout + after.stderr
    if "no detectable difference" in after.stdout:  # (two rounds of identical code may call a difference)
        assert f"| no detectable difference; this runner detects >= {row.group(1)} at 60 s" in after.stdout
    assert "`perflab qualify`" not in after.stdout


def test_qualify_refuses_an_unknown_case_before_measuring(tmp_path):
    (tmp_path / "bench.py").write_text(textwrap.dedent(BENCH.format(work=200, message="first")))
    done = run_perflab(
        "qualify", "bench.py", "--case", "HUGE", cwd=tmp_path, env={"PERFLAB_DB": str(tmp_path / "p.db")}
    )
    assert done.returncode == 2 and "unknown case 'HUGE'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "p.db").exists()
