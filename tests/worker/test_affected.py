"""``check --affected``'s selection (perflab.measure.affected) with real "reach" workers on both
sides: the revision's worktree and the working tree of a throwaway repository."""

from __future__ import annotations

import subprocess

from support.git_repos import committed

from perflab.measure.affected import select
from perflab.measure.settings import Settings

# total() on line 1, where the module's own code starts too: importing is not calling it.
OPS = """\
def total(x):
    return sum(x)


def make(n):
    return list(range(n))


def double(x):
    if len(x) > 10:
        total(x)
    return [v * 2 for v in x]


class Base:
    def size(self):
        return 1


class Child(Base):
    def size(self):
        return 2
"""

BENCH = """\
import subprocess
import sys

import perflab
from pkg import ops

bench = perflab.Benchmark("ops")


@bench.case
def SMALL():
    return ops.make(3)


@bench.case
def BIG():
    return ops.make(100)


@bench.contender
def doubled(x):
    return len(ops.double(x))


@bench.contender
def sized(x):
    return ops.Child().size()


@bench.contender
def program(x):
    return subprocess.run([sys.executable, "-c", "pass"]).returncode
"""


def repository(tmp_path):
    return committed(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "bench.py": BENCH})


def change(tmp_path, old, new):
    ops = tmp_path / "pkg" / "ops.py"
    ops.write_text(ops.read_text().replace(old, new))


def chosen(tmp_path, commit, cases, contenders):
    selection = select(tmp_path / "bench.py", commit, commit, cases, contenders, Settings(timeout=60))
    return {(case, contender) for contender, ran in selection.run.items() for case in ran}, selection


def test_only_the_cells_that_run_the_changed_function_run(tmp_path):
    commit = repository(tmp_path)
    change(tmp_path, "return sum(x)", "return sum(x) + 0")
    ran, selection = chosen(tmp_path, commit, ["SMALL", "BIG"], ["doubled", "sized", "program"])
    # BIG calls total() through double(); a program started is code out of sight: it runs too.
    assert ran == {("BIG", "doubled"), ("SMALL", "program"), ("BIG", "program")}
    assert sorted(selection.skipped) == [
        ("BIG", "sized", "reaches none of the 1 changed function"),
        ("SMALL", "doubled", "reaches none of the 1 changed function"),
        ("SMALL", "sized", "reaches none of the 1 changed function"),
    ]
    assert selection.summary("main") == (
        "--affected main: 1 changed function since main; 3 of 6 cell(s) reach them and run, 3 skipped"
    )


def test_code_only_the_revision_ran_and_the_inputs_builder_count(tmp_path):
    commit = repository(tmp_path)
    # Child.size deleted: now Base.size (unchanged) runs; only the revision's trace shows the change.
    change(tmp_path, "    def size(self):\n        return 2\n", "    def other(self):\n        return 3\n")
    ran, _ = chosen(tmp_path, commit, ["SMALL"], ["sized", "doubled"])
    assert ran == {("SMALL", "sized")}
    subprocess.run(["git", "-C", tmp_path, "checkout", "-q", "--", "."], check=True)
    change(tmp_path, "return list(range(n))", "return list(range(n * 2))")  # the case's input, not the operation
    ran, selection = chosen(tmp_path, commit, ["SMALL"], ["sized"])
    assert ran == {("SMALL", "sized")} and not selection.skipped
