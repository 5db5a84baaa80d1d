"""``perflab check --affected REV`` end to end: only the cells that reach a changed function are
measured against the revision, the rest are skipped and said so, in the terminal and the JSON."""

from __future__ import annotations

import json

from support.cli import QUICK, run_perflab
from support.git_repos import committed

OPS = """\
def total(x):
    return sum(x)


def count(x):
    return len(x)
"""

BENCH = """\
import perflab
from pkg import ops

bench = perflab.Benchmark("ops")


@bench.case
def SMALL():
    return list(range(10))


@bench.contender
def summed(x):
    return ops.total(x)


@bench.contender
def counted(x):
    return ops.count(x) and sum(x)
"""


def repository(tmp_path):
    committed(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "bench.py": BENCH})
    return tmp_path / "pkg" / "ops.py"


def test_only_the_affected_cell_is_measured_and_the_other_is_said_skipped(tmp_path):
    """6 s (30 s at load average 17) on the 2-core VM: one paired timing run of one cell, the least a check
    that measures can do."""
    ops = repository(tmp_path)
    ops.write_text(OPS.replace("return sum(x)", "return sum(x) + 0"))
    done = run_perflab(
        "check", "bench.py", "--affected", "HEAD", *QUICK, "--no-store", "--json", "out.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "1 changed function since HEAD; 1 of 2 cell(s) reach them and run, 1 skipped" in done.stderr
    assert "- Skipped, reaches none of the 1 changed function: SMALL/counted" in done.stdout
    outcome = json.loads((tmp_path / "out.json").read_text())
    assert [(cell["case"], cell["contender"]) for cell in outcome["cells"]] == [("SMALL", "summed")]
    assert outcome["skipped"] == [
        {"case": "SMALL", "contender": "counted", "reason": "reaches none of the 1 changed function"}
    ]


def test_a_change_no_cell_reaches_measures_nothing_and_passes(tmp_path):
    ops = repository(tmp_path)
    ops.write_text(OPS + "\n\ndef unused():\n    return 1\n")
    done = run_perflab("check", "bench.py", "--against", "HEAD", "--affected", *QUICK, "--no-store", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0 of 2 cell(s) reach them and run, 2 skipped" in done.stdout
    assert "timing" not in done.stderr
