"""What the tiers of test_compare.py share (split by tier from one file)."""

import pytest

from support.git_repos import slowed_history

SLOW_LIB = "def work(xs):\n    return sum(x * x for x in xs) + {extra}\n"


REPO_BENCH = """
import perflab
import mylib

bench = perflab.Benchmark("squares")

@bench.case(items=500)
def K():
    return list(range(500))

@bench.contender
def lib(xs):
    return mylib.work(xs)
"""


@pytest.fixture
def repository(tmp_path):
    """A real git repository with three commits: v1, the same code again, and a 3x slower version."""
    return slowed_history(
        tmp_path / "repo",
        {"bench.py": REPO_BENCH, "mylib.py": SLOW_LIB.format(extra="0")},
        {"mylib.py": SLOW_LIB.format(extra="sum(x * x for x in xs) * 0 + sum(x * x for x in xs) * 0")},
    )
