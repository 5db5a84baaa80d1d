"""Today's benchmark on yesterday's code, as asv does it: ``--rev`` runs the given benchmark file
(untracked, outside the repository, or only on another branch) on each revision's code, and the
working tree's copy of the project is never imported instead of the revision's; ``pytest
--perflab-rev`` does the same with a pytest-benchmark test file."""

import json
import re
import subprocess
import textwrap

import pytest
from support.cli import QUICK, VERDICT, load_json, run_perflab
from support.git_repos import git_repository
from support.pytest_runs import run_pytest

from perflab.pytest_plugin.report import load_runs

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
    assert f"`pytest --perflab {tests} --perflab-rev A --perflab-rev B`" in result.stderr


# The pytest file, untracked in the working tree beside mylib.py (whose working tree copy is another
# version): each revision's process says which mylib its test ran on, in the file $SEEN names.
# Timed by CPU time, as the gate tests are: the wiring is tested, not the machine's load.
PYTEST_FILE = """
import os, time
import pytest
import mylib

@pytest.mark.benchmark(timer=time.process_time)
def test_work(benchmark):
    with open(os.environ["SEEN"], "a") as seen:
        seen.write(mylib.VERSION + "\\n")
    assert benchmark(mylib.work, list(range(400))) == sum(x * x for x in range(400))
"""
PYTEST_QUICK = ["--perflab", "--benchmark-max-time", "0.2", "--perflab-precision", "5"]


def test_a_pytest_benchmark_file_compares_revisions_paired(project, tmp_path):
    (project / "test_speed.py").write_text(PYTEST_FILE)
    out, pytest_benchmark_out, seen = tmp_path / "session.json", tmp_path / "pb.json", tmp_path / "seen.txt"
    done = run_pytest(
        project, *PYTEST_QUICK, "--perflab-rev", "main~1", "--perflab-rev", "main", "--perflab-json", out,
        "--benchmark-json", pytest_benchmark_out, env={"SEEN": str(seen)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "every ratio is main relative to main~1" in done.stdout
    assert re.search(
        r"test_work \[main\]: .*; vs main~1: [\d.]+x slower \[[\d.]+x, [\d.]+x\], verdict: slower", done.stdout
    )
    [run] = load_runs(out)
    assert [(c.case, c.contender, c.reference, c.verdict) for c in run.comparisons] == [
        ("test_work", "main", "main~1", "slower")
    ]
    assert run.comparisons[0].comparison.ratio.value > 1  # main / main~1, the one ratio of every output
    entry = {b["name"]: b for b in json.loads(pytest_benchmark_out.read_text())["benchmarks"]}["test_work::main"]
    assert entry["perflab"]["verdict"] == "slower" and entry["perflab"]["ratio_to_reference"]["value"] > 1
    assert sorted(set(seen.read_text().split())) == ["v1", "v2"]  # never the working tree's mylib
    assert [(e.contender, e.status) for e in run.equivalence] == [("main~1", "reference"), ("main", "equivalent")]
    assert _worktrees(project) == 1  # the revisions' worktrees are gone
    # Stored as compare --rev's runs are, one per revision at its commit: a baseline for the gate.
    assert "stored as runs 1, 2 in" in done.stdout
    # The gate's wiring is tested, not its power: the baseline was stored by another session, not
    # interleaved with this one, and under CI's load (7.7 on 2 vCPUs) the same code's CPU time per
    # call came out 1.96x the stored one. 99%, near the largest threshold there is: a doubled time fails it.
    gate = run_pytest(
        project, *PYTEST_QUICK, "--perflab-against", "main~1", "--perflab-threshold", "99", env={"SEEN": str(seen)}
    )
    assert gate.returncode == 0, gate.stdout[-3000:]
    assert "perflab gate against main~1" in gate.stdout and "test_work [benchmark]" in gate.stdout


def test_revisions_whose_outputs_differ_get_an_invalid_ratio_as_compare_rev_gives(project, tmp_path):
    """The outputs are compared as compare --rev compares them: the first revision's, pickled, in
    the other's process; one that differs makes that revision's ratio invalid, the difference said."""
    (project / "test_speed.py").write_text(
        "import mylib\n\n\ndef test_version(benchmark):\n    benchmark(lambda: mylib.VERSION)\n"
    )
    out = tmp_path / "session.json"
    done = run_pytest(project, *PYTEST_QUICK, "--perflab-rev", "main~1", "--perflab-rev", "main", "--perflab-json", out)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "verdict: invalid (not equivalent)" in done.stdout
    assert "not equivalent to main~1: first difference" in done.stdout and "'v1'" in done.stdout
    [run] = load_runs(out)
    assert [c.valid for c in run.comparisons] == [False]
    assert [e.status for e in run.equivalence] == ["reference", "not equivalent"]


def test_a_tests_outcome_on_each_revision_is_its_outcome(project, tmp_path):
    """Failing on one revision fails the test, naming it, with that process's output; skipped on
    every revision skips it; what is not compared across revisions fails saying so."""
    (project / "test_speed.py").write_text(
        textwrap.dedent("""
            import mylib
            import pytest

            def test_version(benchmark):
                benchmark(mylib.work, [1])
                assert mylib.VERSION == "v2"

            def test_skipped(benchmark):
                pytest.skip("not on any revision")

            def test_pedantic(benchmark):
                benchmark.pedantic(mylib.work, ([1],))
        """)
    )
    done = run_pytest(project, *PYTEST_QUICK, "--perflab-rev", "main~1", "--perflab-rev", "main", "-rs")
    assert done.returncode == 1
    assert "--perflab-rev main~1 (the working tree's test on its code): the test failed there" in done.stdout
    assert "AssertionError" in done.stdout
    assert "not on any revision" in done.stdout and "1 skipped" in done.stdout
    assert "benchmark.pedantic(...) is not compared across revisions" in done.stdout
    assert "2 failed" in done.stdout


def test_the_working_tree_is_a_revision_uncommitted_changes_included(project, tmp_path):
    (project / "test_speed.py").write_text(PYTEST_FILE)
    seen, out = tmp_path / "seen.txt", tmp_path / "session.json"
    done = run_pytest(
        project, *PYTEST_QUICK, "--perflab-rev", "main", "--perflab-rev", "WORKTREE", "--perflab-json", out,
        "--perflab-no-store", env={"SEEN": str(seen)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "WORKTREE (" in done.stdout and "uncommitted changes included" in done.stdout
    [run] = load_runs(out)
    assert [(c.contender, c.reference, c.verdict) for c in run.comparisons] == [("WORKTREE", "main", "faster")]
    assert sorted(set(seen.read_text().splitlines())) == ["v2", "working tree"]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--perflab-rev", "no-such", "--perflab-rev", "main"], "--perflab-rev: revision 'no-such' does not exist in"),
        (["--perflab-rev", "main"], "--perflab-rev needs two or more revisions"),
        (["--perflab-rev", "main", "--perflab-rev", "main"], "--perflab-rev main is given twice"),
        (["--perflab-rev", "main~1", "--perflab-rev", "main", "--perflab-against", "main"], "cannot be combined"),
    ],
)
def test_bad_perflab_revs_are_one_line_usage_errors(project, options, message):
    (project / "test_speed.py").write_text(PYTEST_FILE)
    done = run_pytest(project, *PYTEST_QUICK, *options, env={"SEEN": "/dev/null"})
    assert done.returncode == 4, done.stdout[-2000:]
    assert message in done.stderr and done.stderr.strip().count("\n") == 0, done.stderr
    assert _worktrees(project) == 1


def test_perflab_rev_without_perflab_beside_pytest_benchmark_says_to_add_it(project):
    (project / "test_speed.py").write_text(PYTEST_FILE)
    done = run_pytest(project, "--perflab-rev", "main~1", "--perflab-rev", "main")
    assert done.returncode == 4
    assert "--perflab-rev needs perflab's benchmark fixture: add --perflab" in done.stderr


def _worktrees(project) -> int:
    listed = subprocess.run(["git", "-C", project, "worktree", "list"], capture_output=True, text=True, check=True)
    return len(listed.stdout.splitlines())


def test_submit_of_an_uncommitted_benchmark_says_to_commit_it(project, tmp_path):
    bench = _placed(project, tmp_path, "untracked")
    result = run_perflab(
        "submit", bench, "--rev", "main~1", "--rev", "main", "--db", "postgresql://127.0.0.1:9/none", cwd=project
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "not committed at HEAD" in result.stderr and "git add bench.py && git commit" in result.stderr


def test_check_runs_a_working_tree_benchmark_on_the_baseline_revisions_code_when_asked(project, tmp_path):
    """check --against reads the baseline's benchmark at the revision (a file holding the code under
    test must not run on both sides); a benchmark that imports the project, untracked, runs on the
    revision's code with --benchmark-from-worktree, and without it the error says so."""
    bench, seen = _placed(project, tmp_path, "untracked"), tmp_path / "seen.txt"
    (project / "mylib.py").write_text(LIB.format(version="working tree", extra=SLOWER))  # today's code: slower
    refused = run_perflab(
        "check", bench, "--against", "main~1", *VERDICT, "--no-store", cwd=project, env={"SEEN": str(seen)}
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        f"perflab: error: --against main~1: {bench} does not exist at main~1, where check reads the baseline's "
        "benchmark; give --benchmark-from-worktree to run this file on main~1's code"
    )
    out = tmp_path / "check.json"
    result = run_perflab(
        "check", bench, "--against", "main~1", "--benchmark-from-worktree", *VERDICT, "--json", out, "--no-store",
        cwd=project, env={"SEEN": str(seen)},
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr  # the gate fails: a regression
    cells = load_json(out)["cells"]
    assert [(c["case"], c["verdict"]) for c in cells] == [("K", "REGRESSION")]
    assert set(seen.read_text().split("\n")) - {""} <= {"v1", "working tree"} and "v1" in seen.read_text()
