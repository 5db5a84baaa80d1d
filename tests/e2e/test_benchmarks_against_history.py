"""Today's benchmark on yesterday's code, as asv does it: ``--rev`` runs the given benchmark file
(untracked, outside the repository, or only on another branch) on each revision's code, and the
working tree's copy of the project is never imported instead of the revision's."""

import subprocess

import pytest
from support.cli import QUICK, VERDICT, load_json, run_perflab
from support.git_repos import git_repository

# Each worker that imports the benchmark says which mylib it got (the revision's VERSION), in the
# file $SEEN names: the sides' code, not only their speed, is checked.
BENCH = """
import os
import mylib
import perflab

with open(os.environ["SEEN"], "a") as seen:
    seen.write(mylib.VERSION + "\\n")

bench = perflab.Benchmark("squares")

@bench.case
def K():
    return list(range(400))

@bench.contender
def lib(xs):
    return mylib.work(xs)
"""
LIB = "VERSION = {version!r}\n\ndef work(xs):\n    return sum(x * x for x in xs){extra}\n"
SLOWER = " + sum(x * x for x in xs) * 0 + sum(x * x for x in xs) * 0"


@pytest.fixture
def project(tmp_path):
    """v1, then v2 three times slower; the working tree's mylib is another, uncommitted, version
    (a trap: the benchmark beside it must not import it for a revision)."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    for version, extra in (("v1", ""), ("v2", SLOWER)):
        (repo / "mylib.py").write_text(LIB.format(version=version, extra=extra))
        git("add", "-A")
        git("commit", "-qm", version)
    git("branch", "-M", "main")
    (repo / "mylib.py").write_text(LIB.format(version="working tree", extra=""))
    return repo


def _placed(project, tmp_path, where: str):
    """The benchmark file, placed as a new user has it: untracked beside the code, outside the
    repository, or committed only on a side branch (checked out)."""
    if where == "outside":
        path = tmp_path / "elsewhere" / "bench.py"
        path.parent.mkdir()
    else:
        path = project / "bench.py"
    path.write_text(BENCH)
    if where == "side branch":
        for command in (["checkout", "-q", "-b", "benchmarks"], ["add", "bench.py"], ["commit", "-qm", "bench"]):
            subprocess.run(["git", "-C", project, *command], check=True)
    return path


@pytest.mark.parametrize("where", ["untracked", "outside", "side branch"])
def test_the_given_benchmark_runs_on_each_revisions_code(project, tmp_path, where):
    bench, out, seen = _placed(project, tmp_path, where), tmp_path / "r.json", tmp_path / "seen.txt"
    result = run_perflab(
        "compare", bench, "--rev", "main~1", "--rev", "main", *VERDICT, "--json", out, "--no-store",
        cwd=project, env={"SEEN": str(seen)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert [c["verdict"] for c in load_json(out)["comparisons"]] == ["slower"]
    assert set(seen.read_text().split("\n")) - {""} == {"v1", "v2"}  # never the working tree's mylib


def test_the_working_tree_side_imports_the_working_trees_code(project, tmp_path):
    bench, seen = _placed(project, tmp_path, "outside"), tmp_path / "seen.txt"
    result = run_perflab(
        "compare", bench, "--rev", "main", "--rev", "WORKTREE", *QUICK, "--no-store",
        cwd=project, env={"SEEN": str(seen)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(seen.read_text().split("\n")) - {""} == {"v2", "working tree"}


@pytest.mark.parametrize(
    "where, message",
    [
        (
            "untracked",
            "bench.py does not exist at revision 'main~1' (--benchmark-from-revision reads the benchmark from each "
            "revision; without it, the working tree's bench.py runs on each revision's code)",
        ),
        ("outside", "is outside the repository"),
    ],
)
def test_the_file_from_each_revision_is_asked_for_and_its_absence_said(project, tmp_path, where, message):
    bench = _placed(project, tmp_path, where)
    result = run_perflab(
        "compare", bench, "--rev", "main~1", "--rev", "main", "--benchmark-from-revision", *QUICK, cwd=project
    )
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1


def test_a_revision_without_what_the_benchmark_imports_says_what_to_do(project, tmp_path):
    bench = _placed(project, tmp_path, "outside")
    bench.write_text("import mylib_helpers\n" + BENCH)  # only in the working tree, and not beside the file
    (project / "mylib_helpers.py").write_text("")  # in the current directory: not imported from there either
    result = run_perflab(
        "compare", bench, "--rev", "main~1", "--rev", "main", *QUICK, cwd=project, env={"SEEN": str(tmp_path / "s")}
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "No module named 'mylib_helpers'" in result.stderr
    assert "(main: the given benchmark file runs on this revision's code" in result.stderr
    assert "--benchmark-from-revision" in result.stderr


def test_outside_every_repository_says_where_to_run_from(tmp_path):
    bench = tmp_path / "bench.py"
    bench.write_text(BENCH)
    result = run_perflab("compare", bench, "--rev", "HEAD~1", "--rev", "HEAD", *QUICK, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "neither is the current directory: run perflab from inside the project" in result.stderr


def test_a_pytest_benchmark_file_given_to_rev_says_how_to_run_it(project, tmp_path):
    tests = project / "test_speed.py"
    tests.write_text("import mylib\n\n\ndef test_work(benchmark):\n    benchmark(mylib.work, list(range(10)))\n")
    result = run_perflab("compare", tests, "--rev", "main~1", "--rev", "main", *QUICK, cwd=project)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert f"it is a pytest file with benchmark tests: run `pytest --perflab {tests}`" in result.stderr
    assert "--perflab-against REV" in result.stderr


def test_submit_of_an_uncommitted_benchmark_says_to_commit_it(project, tmp_path):
    bench = _placed(project, tmp_path, "untracked")
    result = run_perflab(
        "submit", bench, "--rev", "main~1", "--rev", "main", "--db", "postgresql://127.0.0.1:9/none", cwd=project
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "not committed at HEAD" in result.stderr and "git add bench.py && git commit" in result.stderr
